//! SDMA 6.0 packet encoders, laid out as Linux's
//! `drivers/gpu/drm/amd/amdgpu/sdma_v6_0_0_pkt_open.h` defines them (and
//! ROCr's `src/core/inc/sdma_registers.h`). Each returns the packet's
//! dwords; the header dword holds the opcode in bits 7:0 and the
//! sub-opcode in bits 15:8.

/// `SDMA_OP_COPY`.
pub const OP_COPY: u32 = 1;
/// `SDMA_OP_FENCE`.
pub const OP_FENCE: u32 = 5;
/// `SDMA_OP_TRAP`.
pub const OP_TRAP: u32 = 6;
/// `SDMA_OP_POLL_REGMEM`.
pub const OP_POLL_REGMEM: u32 = 8;
/// `SDMA_OP_ATOMIC`.
pub const OP_ATOMIC: u32 = 10;
/// `SDMA_OP_CONST_FILL`.
pub const OP_CONST_FILL: u32 = 11;
/// `SDMA_OP_TIMESTAMP`.
pub const OP_TIMESTAMP: u32 = 13;
/// `SDMA_SUBOP_COPY_LINEAR`.
pub const SUBOP_COPY_LINEAR: u32 = 0;
/// `SDMA_SUBOP_TIMESTAMP_GET_GLOBAL`.
pub const SUBOP_TIMESTAMP_GET_GLOBAL: u32 = 2;
/// ATOMIC's 64-bit add (`SDMA_OP_AT_ADD64` in ROCr's `sdma_registers.h`).
pub const ATOMIC_ADD64: u32 = 47;
/// CONSTANT_FILL's `fillsize` for a dword pattern.
pub const FILL_SIZE_DWORD: u32 = 2;
/// POLL_REGMEM's `func` "equal".
pub const POLL_FUNC_EQUAL: u32 = 3;
/// POLL_REGMEM's interval (16 clocks) and retry count (0xfff: for ever),
/// ROCr `BlitSdma::BuildPollCommand`'s values.
pub const POLL_INTERVAL: u32 = 0x10;
pub const POLL_RETRY_FOREVER: u32 = 0xfff;

/// Most bytes one COPY_LINEAR or CONSTANT_FILL moves: the count field is
/// bits 21:0 holding bytes - 1 (Linux `sdma_v6_0.c`: `copy_max_bytes` and
/// `fill_max_bytes` 0x400000).
pub const MAX_BYTES_PER_PACKET: u64 = 1 << 22;

fn lo(a: u64) -> u32 {
    a as u32
}

fn hi(a: u64) -> u32 {
    (a >> 32) as u32
}

fn header(op: u32, sub_op: u32) -> u32 {
    op | (sub_op << 8)
}

/// COPY_LINEAR of `bytes` (1..=[`MAX_BYTES_PER_PACKET`]) from `src` to
/// `dst`: header, count (bytes - 1), parameter (no swaps), source, then
/// destination addresses.
pub fn copy_linear(dst: u64, src: u64, bytes: u64) -> [u32; 7] {
    debug_assert!((1..=MAX_BYTES_PER_PACKET).contains(&bytes));
    [
        header(OP_COPY, SUBOP_COPY_LINEAR),
        (bytes - 1) as u32,
        0,
        lo(src),
        hi(src),
        lo(dst),
        hi(dst),
    ]
}

/// CONSTANT_FILL of `bytes` (a multiple of 4, at most
/// [`MAX_BYTES_PER_PACKET`]) at the dword-aligned `dst` with `pattern`:
/// header with `fillsize` (bits 31:30) 2, destination, data, count.
pub fn constant_fill(dst: u64, pattern: u32, bytes: u64) -> [u32; 5] {
    debug_assert!((4..=MAX_BYTES_PER_PACKET).contains(&bytes) && bytes.is_multiple_of(4));
    [
        header(OP_CONST_FILL, 0) | (FILL_SIZE_DWORD << 30),
        lo(dst),
        hi(dst),
        pattern,
        (bytes - 1) as u32,
    ]
}

/// FENCE: store `data` at the dword-aligned `addr`.
pub fn fence(addr: u64, data: u32) -> [u32; 4] {
    [header(OP_FENCE, 0), lo(addr), hi(addr), data]
}

/// TRAP: raise an interrupt with the 28-bit `int_context` (an event id).
pub fn trap(int_context: u32) -> [u32; 2] {
    [header(OP_TRAP, 0), int_context & 0x0fff_ffff]
}

/// POLL_REGMEM on memory: wait until `(*addr & mask) == value` (header:
/// `func` bits 30:28 = equal, `mem_poll` bit 31), polling every
/// [`POLL_INTERVAL`] for ever.
pub fn poll_memory_equal(addr: u64, value: u32, mask: u32) -> [u32; 6] {
    [
        header(OP_POLL_REGMEM, 0) | (POLL_FUNC_EQUAL << 28) | (1 << 31),
        lo(addr),
        hi(addr),
        value,
        mask,
        POLL_INTERVAL | (POLL_RETRY_FOREVER << 16),
    ]
}

/// ATOMIC 64-bit add of `value` at the 8-byte-aligned `addr` (header:
/// `operation` bits 31:25), no loop: address, source data, compare data
/// (unused), loop interval.
pub fn atomic_add64(addr: u64, value: u64) -> [u32; 8] {
    [
        header(OP_ATOMIC, 0) | (ATOMIC_ADD64 << 25),
        lo(addr),
        hi(addr),
        lo(value),
        hi(value),
        0,
        0,
        0,
    ]
}

/// TIMESTAMP GET_GLOBAL: store the GPU's 64-bit global timestamp at the
/// 8-byte-aligned `addr`.
pub fn timestamp(addr: u64) -> [u32; 3] {
    [
        header(OP_TIMESTAMP, SUBOP_TIMESTAMP_GET_GLOBAL),
        lo(addr),
        hi(addr),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(dwords: &[u32]) -> Vec<u8> {
        dwords.iter().flat_map(|d| d.to_le_bytes()).collect()
    }

    #[test]
    fn copy_linear_bytes() {
        let p = copy_linear(0x0000_7fff_1234_5600, 0x0000_0001_8000_0040, 0x40_0000);
        assert_eq!(
            bytes(&p),
            [
                0x01, 0x00, 0x00, 0x00, // op 1, sub_op 0 (COPY_LINEAR)
                0xff, 0xff, 0x3f, 0x00, // count = 4 MiB - 1
                0x00, 0x00, 0x00, 0x00, // no swaps
                0x40, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00, // source
                0x00, 0x56, 0x34, 0x12, 0xff, 0x7f, 0x00, 0x00, // destination
            ]
        );
    }

    #[test]
    fn constant_fill_bytes() {
        let p = constant_fill(0x1_0000_1000, 0xdead_beef, 8);
        assert_eq!(
            bytes(&p),
            [
                0x0b, 0x00, 0x00, 0x80, // op 11, fillsize 2 in bits 31:30
                0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, // destination
                0xef, 0xbe, 0xad, 0xde, // data
                0x07, 0x00, 0x00, 0x00, // count = 8 - 1
            ]
        );
    }

    #[test]
    fn fence_and_trap_bytes() {
        assert_eq!(
            bytes(&fence(0x2_0000_0008, 0x55)),
            [0x05, 0, 0, 0, 0x08, 0, 0, 0, 0x02, 0, 0, 0, 0x55, 0, 0, 0]
        );
        assert_eq!(
            bytes(&trap(0xf123_4567)),
            [0x06, 0, 0, 0, 0x67, 0x45, 0x23, 0x01],
            "int_context keeps 28 bits"
        );
    }

    #[test]
    fn poll_regmem_bytes() {
        let p = poll_memory_equal(0x7000_0010, 0, u32::MAX);
        assert_eq!(
            bytes(&p),
            [
                0x08, 0x00, 0x00, 0xb0, // op 8, func 3 (bits 30:28), mem_poll (bit 31)
                0x10, 0x00, 0x00, 0x70, 0x00, 0x00, 0x00, 0x00, // address
                0x00, 0x00, 0x00, 0x00, // reference value
                0xff, 0xff, 0xff, 0xff, // mask
                0x10, 0x00, 0xff, 0x0f, // interval 16, retry count 0xfff
            ]
        );
    }

    #[test]
    fn atomic_and_timestamp_bytes() {
        let p = atomic_add64(0x1234_5678_9ab8, u64::MAX);
        assert_eq!(
            bytes(&p),
            [
                0x0a, 0x00, 0x00, 0x5e, // op 10, operation 47 in bits 31:25
                0xb8, 0x9a, 0x78, 0x56, 0x34, 0x12, 0x00, 0x00, // address
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // -1
                0, 0, 0, 0, 0, 0, 0, 0, // compare data (unused)
                0, 0, 0, 0, // loop interval
            ]
        );
        assert_eq!(
            bytes(&timestamp(0x1_0000_0020)),
            [0x0d, 0x02, 0, 0, 0x20, 0, 0, 0, 0x01, 0, 0, 0]
        );
    }
}
