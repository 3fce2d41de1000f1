//! Typed slices to the bytes a buffer holds, and back (little-endian, as
//! every gfx target and every host Aqueduct runs on).

/// The bytes of a slice of plain values.
pub fn bytes_of<T: bytemuck::Pod>(values: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(values).to_vec()
}

/// Bytes read back as `T`s (the length must be a multiple of `T`'s size;
/// the bytes need no alignment).
pub fn values<T: bytemuck::Pod>(bytes: &[u8]) -> Vec<T> {
    let size = std::mem::size_of::<T>();
    assert_eq!(
        bytes.len() % size,
        0,
        "{} bytes are not whole values",
        bytes.len()
    );
    bytes
        .chunks_exact(size)
        .map(bytemuck::pod_read_unaligned)
        .collect()
}

pub fn u32s(bytes: &[u8]) -> Vec<u32> {
    values(bytes)
}

pub fn i32s(bytes: &[u8]) -> Vec<i32> {
    values(bytes)
}

pub fn f32s(bytes: &[u8]) -> Vec<f32> {
    values(bytes)
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trips_unaligned() {
        let b = super::bytes_of(&[1u32, 0xdead_beef]);
        assert_eq!(super::u32s(&b), [1, 0xdead_beef]);
        let mut shifted = vec![0u8];
        shifted.extend_from_slice(&b);
        assert_eq!(super::u32s(&shifted[1..]), [1, 0xdead_beef]);
    }
}
