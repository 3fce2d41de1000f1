//! The SDMA 6.0 (gfx11) packet formats the engine executes, as Linux's
//! `drivers/gpu/drm/amd/amdgpu/sdma_v6_0_0_pkt_open.h` lays them out (and
//! ROCr's `src/core/inc/sdma_registers.h` for the same engine). Every
//! packet starts with a header dword: opcode in bits 7:0, sub-opcode in
//! bits 15:8; the rest is per packet.

/// Opcodes (`SDMA_OP_*`).
pub mod op {
    pub const NOP: u32 = 0;
    pub const COPY: u32 = 1;
    pub const FENCE: u32 = 5;
    pub const TRAP: u32 = 6;
    pub const POLL_REGMEM: u32 = 8;
    pub const ATOMIC: u32 = 10;
    pub const CONST_FILL: u32 = 11;
    pub const TIMESTAMP: u32 = 13;
}

/// `SDMA_SUBOP_COPY_LINEAR`.
pub const SUBOP_COPY_LINEAR: u32 = 0;
/// `SDMA_SUBOP_TIMESTAMP_GET_GLOBAL`.
pub const SUBOP_TIMESTAMP_GET_GLOBAL: u32 = 2;
/// The ATOMIC packet's 64-bit add (`SDMA_OP_AT_ADD64` in ROCr's
/// `sdma_registers.h`; the TC atomic opcode `TC_OP_ATOMIC_ADD_RTN_64`).
pub const ATOMIC_ADD64: u32 = 47;

/// Dwords of each packet the engine executes.
pub const COPY_LINEAR_DWORDS: u32 = 7;
pub const FENCE_DWORDS: u32 = 4;
pub const TRAP_DWORDS: u32 = 2;
pub const POLL_REGMEM_DWORDS: u32 = 6;
pub const ATOMIC_DWORDS: u32 = 8;
pub const CONST_FILL_DWORDS: u32 = 5;
pub const TIMESTAMP_DWORDS: u32 = 3;

/// COPY_LINEAR's and CONSTANT_FILL's count field: bits 21:0, bytes - 1
/// (Linux `sdma_v6_0.c`: `copy_max_bytes` and `fill_max_bytes` 0x400000).
pub const COUNT_MASK: u32 = 0x003f_ffff;

/// The header's opcode.
pub fn opcode(header: u32) -> u32 {
    header & 0xff
}

/// The header's sub-opcode.
pub fn sub_opcode(header: u32) -> u32 {
    (header >> 8) & 0xff
}

/// A NOP header's count (bits 29:16): dwords of payload after the header.
pub fn nop_count(header: u32) -> u32 {
    (header >> 16) & 0x3fff
}

/// CONSTANT_FILL's `fillsize` (header bits 31:30): the pattern's width as
/// log2 of bytes (0: the data's low byte, 2: the whole dword).
pub fn fill_size(header: u32) -> u32 {
    header >> 30
}

/// POLL_REGMEM's `func` (header bits 30:28).
pub fn poll_function(header: u32) -> u32 {
    (header >> 28) & 0x7
}

/// POLL_REGMEM's `mem_poll` (header bit 31): poll memory, not a register.
pub fn poll_memory(header: u32) -> bool {
    header >> 31 != 0
}

/// ATOMIC's `operation` (header bits 31:25).
pub fn atomic_operation(header: u32) -> u32 {
    header >> 25
}

/// A 64-bit address from its low and high dwords.
pub fn address(lo: u32, hi: u32) -> u64 {
    (u64::from(hi) << 32) | u64::from(lo)
}

/// Whether POLL_REGMEM's compare function `func` holds for `value`
/// against `reference` (the header's table: 0 always, 1 <, 2 <=, 3 ==,
/// 4 !=, 5 >=, 6 >; 7 is reserved: None).
pub fn poll_holds(func: u32, value: u32, reference: u32) -> Option<bool> {
    Some(match func {
        0 => true,
        1 => value < reference,
        2 => value <= reference,
        3 => value == reference,
        4 => value != reference,
        5 => value >= reference,
        6 => value > reference,
        _ => return None,
    })
}

/// Dwords of the packet `header` starts, or None for an opcode (or
/// sub-opcode) the engine does not execute.
pub fn length(header: u32) -> Option<u32> {
    let sub = sub_opcode(header);
    Some(match opcode(header) {
        op::NOP => 1 + nop_count(header),
        op::COPY if sub == SUBOP_COPY_LINEAR => COPY_LINEAR_DWORDS,
        op::FENCE => FENCE_DWORDS,
        op::TRAP => TRAP_DWORDS,
        op::POLL_REGMEM => POLL_REGMEM_DWORDS,
        op::ATOMIC => ATOMIC_DWORDS,
        op::CONST_FILL => CONST_FILL_DWORDS,
        op::TIMESTAMP if sub == SUBOP_TIMESTAMP_GET_GLOBAL => TIMESTAMP_DWORDS,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_follow_the_header() {
        assert_eq!(length(0), Some(1));
        assert_eq!(length(3 << 16), Some(4));
        assert_eq!(length(op::COPY), Some(7));
        assert_eq!(length(op::COPY | (1 << 8)), None, "tiled copy");
        assert_eq!(length(op::TIMESTAMP | (2 << 8)), Some(3));
        assert_eq!(length(op::TIMESTAMP), None, "TIMESTAMP_SET");
        assert_eq!(length(3), None, "opcode 3 is not defined");
    }

    #[test]
    fn poll_functions() {
        assert_eq!(poll_holds(3, 0, 0), Some(true));
        assert_eq!(poll_holds(3, 1, 0), Some(false));
        assert_eq!(poll_holds(1, 1, 2), Some(true));
        assert_eq!(poll_holds(6, 1, 2), Some(false));
        assert_eq!(poll_holds(7, 1, 2), None);
    }
}
