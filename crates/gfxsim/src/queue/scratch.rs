//! The command processor's scratch (private segment) rules for a dispatch:
//! what one wave may ask for, as the COMPUTE_TMPRING_SIZE register bounds it.
//!
//! gfx11 programs a wave's scratch size in COMPUTE_TMPRING_SIZE.WAVESIZE, a
//! 15-bit field in units of 256 bytes (Linux `gc_11_0_0_sh_mask.h`,
//! `COMPUTE_TMPRING_SIZE__WAVESIZE_MASK`; ROCr `amd_aql_queue.cpp`,
//! `AqlQueue::FillComputeTmpRingSize`, rounds a wave's bytes up to
//! `mem_alignment_size` and asserts the field does not overflow). A dispatch
//! whose private segment needs more per wave than that field can hold can
//! never be given scratch: it is a malformed dispatch for the queue, raised
//! before any memory is sized for it.

use aqueduct_kfd::uapi::exception_code;

use crate::fault::QueueError;

/// Bytes of one COMPUTE_TMPRING_SIZE.WAVESIZE unit on gfx11.
pub const WAVESIZE_GRANULE: u64 = 256;
/// Largest COMPUTE_TMPRING_SIZE.WAVESIZE value (a 15-bit field on gfx11).
pub const WAVESIZE_MAX: u64 = (1 << 15) - 1;

/// Scratch bytes one wave of `lanes` lanes needs for `private_segment_size`
/// bytes per work-item, rounded up to the WAVESIZE granule (ROCr
/// `AqlQueue::HandleInsufficientScratch`: `size_per_thread` aligned to
/// `mem_alignment_size / lanes_per_wave`).
pub fn wave_scratch_bytes(private_segment_size: u32, lanes: u64) -> u64 {
    (u64::from(private_segment_size) * lanes).next_multiple_of(WAVESIZE_GRANULE)
}

/// Refuse a private segment no wave of `lanes` lanes can be given: more
/// than WAVESIZE's largest value per wave.
pub fn check_private_segment(
    index: u64,
    private_segment_size: u32,
    lanes: u64,
) -> Result<(), QueueError> {
    let wave_bytes = wave_scratch_bytes(private_segment_size, lanes);
    let limit = WAVESIZE_MAX * WAVESIZE_GRANULE;
    if wave_bytes > limit {
        return Err(QueueError::packet(
            exception_code::EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID,
            format!(
                "packet {index}: private segment {private_segment_size} bytes per work-item \
                 needs {wave_bytes} bytes of scratch per wave of {lanes} lanes, more than \
                 COMPUTE_TMPRING_SIZE.WAVESIZE can hold ({limit})"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_wave_fits_and_one_granule_more_does_not() {
        // 131068 bytes per lane of a wave64 is 32767 granules exactly.
        let per_lane = (WAVESIZE_MAX * WAVESIZE_GRANULE / 64) as u32;
        assert!(check_private_segment(0, per_lane, 64).is_ok());
        assert!(check_private_segment(0, per_lane + 4, 64).is_err());
        // A wave32 may ask for twice as much per lane.
        assert!(check_private_segment(0, 2 * per_lane, 32).is_ok());
        let e = check_private_segment(3, u32::MAX, 64).unwrap_err();
        assert_eq!(
            e.code,
            exception_code::EC_QUEUE_PACKET_DISPATCH_REGISTER_INVALID
        );
    }
}
