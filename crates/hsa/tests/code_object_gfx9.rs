//! GFX9 kernel descriptors (gfx90a, gfx942): the checked-in objects load
//! and expose ACCUM_OFFSET and TG_SPLIT as `llvm-objdump-19 -D
//! --disassemble-symbols=<kernel>.kd` prints them, and a descriptor edited
//! to break one of LLVM AMDGPUUsage's rules
//! (`crates/hsa/src/code_object/descriptor_rules.rs`) is refused with the
//! matching `DescriptorFault`.

use aqueduct_hsa::code_object::{CodeObject, CodeObjectError, DescriptorFault, UserSgpr};
use aqueduct_test_support::repo;

// Byte offsets in the 64-byte kernel descriptor (LLVM AMDHSAKernelDescriptor.h).
const RSRC3: usize = 44;
const RSRC1: usize = 48;
const RSRC2: usize = 52;
const KERNEL_CODE_PROPERTIES: usize = 56;

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

fn write_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// `kernels/<gfx>/<kernel>.co` and the file offset of its descriptor
/// (ld.lld places .rodata at the same file offset as its address; checked
/// against the parsed descriptor).
fn object(gfx: &str, kernel: &str) -> (Vec<u8>, usize) {
    let bytes = repo::kernel(&format!("{gfx}/{kernel}.co"));
    let co = CodeObject::parse(&bytes).unwrap_or_else(|e| panic!("{gfx}/{kernel}: {e}"));
    let info = co.kernel(kernel).expect("kernel");
    let kd = info.descriptor_offset as usize;
    assert_eq!(
        read_u32(&bytes, kd + RSRC1),
        info.descriptor.compute_pgm_rsrc1
    );
    assert_eq!(
        read_u32(&bytes, kd + RSRC2),
        info.descriptor.compute_pgm_rsrc2
    );
    assert_eq!(
        read_u32(&bytes, kd + RSRC3),
        info.descriptor.compute_pgm_rsrc3
    );
    (bytes, kd)
}

/// The fault parsing `bytes` reports for kernel `kernel` on `gfx`.
fn fault(bytes: &[u8], kernel: &str, gfx: &str) -> DescriptorFault {
    match CodeObject::parse(bytes) {
        Err(CodeObjectError::BadDescriptor {
            kernel: k,
            gfx: g,
            fault,
        }) => {
            assert_eq!((k.as_str(), g.as_str()), (kernel, gfx));
            fault
        }
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("a descriptor breaking a {gfx} rule was accepted"),
    }
}

/// Set or clear kernel_code_properties bit `bit`.
fn set_property(bytes: &mut [u8], kd: usize, bit: u32, on: bool) {
    let at = kd + KERNEL_CODE_PROPERTIES;
    let mut kcp = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
    if on {
        kcp |= 1 << bit;
    } else {
        kcp &= !(1 << bit);
    }
    bytes[at..at + 2].copy_from_slice(&kcp.to_le_bytes());
}

/// Set COMPUTE_PGM_RSRC2.USER_SGPR_COUNT (bits 5:1).
fn set_user_sgpr_count(bytes: &mut [u8], kd: usize, count: u32) {
    let rsrc2 = read_u32(bytes, kd + RSRC2);
    write_u32(bytes, kd + RSRC2, rsrc2 & !(0x1f << 1) | count << 1);
}

#[test]
fn every_checked_in_gfx9_object_loads() {
    let mut loaded = 0;
    for dir in [
        "kernels/gfx942",
        "kernels/gfx90a",
        "shaders/gfx942",
        "shaders/gfx90a",
        "shaders/tests/gfx942",
        "shaders/tests/gfx90a",
        "src/blit_kernels/gfx942",
        "src/blit_kernels/gfx90a",
    ] {
        let path = repo::root().join(dir);
        for entry in std::fs::read_dir(&path).unwrap_or_else(|e| panic!("{dir}: {e}")) {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "co") {
                let bytes = std::fs::read(&path).unwrap();
                let co =
                    CodeObject::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                for kernel in co.kernels() {
                    let offset = kernel
                        .accum_offset
                        .expect("gfx90a/gfx942 have ACCUM_OFFSET");
                    assert!((4..=256).contains(&offset) && offset % 4 == 0);
                }
                loaded += 1;
            }
        }
    }
    assert!(loaded >= 130, "{loaded} objects");
}

#[test]
fn accum_offset_and_tg_split_are_llvms() {
    // `.amdhsa_accum_offset` as llvm-objdump-19 prints each descriptor.
    for (gfx, kernel, accum_offset) in [
        ("gfx942", "saxpy", 8),
        ("gfx90a", "saxpy", 8),
        ("gfx942", "matmul_tiled", 32),
        ("gfx90a", "matmul_tiled", 32),
        ("gfx90a", "sqrt_exp_loop", 12),
    ] {
        let co = CodeObject::parse(&repo::kernel(&format!("{gfx}/{kernel}.co"))).unwrap();
        let info = co.kernel(kernel).unwrap();
        assert_eq!(info.accum_offset, Some(accum_offset), "{gfx}/{kernel}");
        assert!(!info.tg_split, "{gfx}/{kernel}");
    }
    // TG_SPLIT (bit 16) set by hand: allowed, and reported.
    let (mut bytes, kd) = object("gfx942", "saxpy");
    let rsrc3 = read_u32(&bytes, kd + RSRC3);
    write_u32(&mut bytes, kd + RSRC3, rsrc3 | 1 << 16);
    let co = CodeObject::parse(&bytes).unwrap();
    let info = co.kernel("saxpy").unwrap();
    assert!(info.tg_split);
    assert_eq!(info.accum_offset, Some(8));
    // gfx11 has no ACCUM_OFFSET.
    let co = CodeObject::parse(&repo::kernel("gfx1100/saxpy.co")).unwrap();
    let info = co.kernel("saxpy").unwrap();
    assert_eq!((info.accum_offset, info.tg_split), (None, false));
}

#[test]
fn wave32_is_refused_on_gfx9() {
    for gfx in ["gfx942", "gfx90a"] {
        let (mut bytes, kd) = object(gfx, "saxpy");
        set_property(&mut bytes, kd, 10, true);
        assert_eq!(
            fault(&bytes, "saxpy", gfx),
            DescriptorFault::Wave32OnGfx9 { gfx: gfx.into() }
        );
    }
}

#[test]
fn reserved_rsrc3_bits_are_refused() {
    let (mut bytes, kd) = object("gfx942", "saxpy");
    let rsrc3 = read_u32(&bytes, kd + RSRC3);
    write_u32(&mut bytes, kd + RSRC3, rsrc3 | 1 << 8);
    assert_eq!(
        fault(&bytes, "saxpy", "gfx942"),
        DescriptorFault::Rsrc3Reserved {
            gfx: "gfx942".into(),
            bits: 1 << 8
        }
    );
    let (mut bytes, kd) = object("gfx90a", "saxpy");
    let rsrc3 = read_u32(&bytes, kd + RSRC3);
    write_u32(&mut bytes, kd + RSRC3, rsrc3 | 1 << 31);
    let err = CodeObject::parse(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "kernel `saxpy`: its kernel descriptor does not suit gfx90a: \
         COMPUTE_PGM_RSRC3 has reserved bits 0x80000000 set on gfx90a"
    );
}

#[test]
fn accum_offset_past_the_vgpr_allocation_is_refused() {
    // saxpy allocates 8 VGPRs (GRANULATED_WORKITEM_VGPR_COUNT 0, blocks of
    // 8); AGPRs from VGPR 12 would lie outside the wave's registers.
    let (mut bytes, kd) = object("gfx942", "saxpy");
    let rsrc3 = read_u32(&bytes, kd + RSRC3);
    write_u32(&mut bytes, kd + RSRC3, rsrc3 & !0x3f | 2);
    assert_eq!(
        fault(&bytes, "saxpy", "gfx942"),
        DescriptorFault::AccumOffsetPastAllocation {
            accum_offset: 12,
            allocated: 8
        }
    );
    // With 16 VGPRs allocated the same offset fits.
    let rsrc1 = read_u32(&bytes, kd + RSRC1);
    write_u32(&mut bytes, kd + RSRC1, rsrc1 & !0x3f | 1);
    CodeObject::parse(&bytes).unwrap();
}

#[test]
fn gfx942_refuses_the_scratch_setup_sgprs_of_gfx90a() {
    // gfx90a kernels take the private segment buffer (its saxpy does).
    let co = CodeObject::parse(&repo::kernel("gfx90a/saxpy.co")).unwrap();
    assert!(
        co.kernel("saxpy")
            .unwrap()
            .descriptor
            .enable_sgpr_private_segment_buffer()
    );
    // gfx942 has architected flat scratch: neither SGPR pair exists.
    for (bit, width, sgpr) in [
        (0, 4, UserSgpr::PrivateSegmentBuffer),
        (5, 2, UserSgpr::FlatScratchInit),
    ] {
        let (mut bytes, kd) = object("gfx942", "saxpy");
        set_property(&mut bytes, kd, bit, true);
        let count = (read_u32(&bytes, kd + RSRC2) >> 1) & 0x1f;
        set_user_sgpr_count(&mut bytes, kd, count + width);
        assert_eq!(
            fault(&bytes, "saxpy", "gfx942"),
            DescriptorFault::ArchitectedFlatScratch {
                gfx: "gfx942".into(),
                sgpr
            }
        );
    }
    // The same flat scratch init on gfx90a loads.
    let (mut bytes, kd) = object("gfx90a", "saxpy");
    set_property(&mut bytes, kd, 5, true);
    let count = (read_u32(&bytes, kd + RSRC2) >> 1) & 0x1f;
    set_user_sgpr_count(&mut bytes, kd, count + 2);
    CodeObject::parse(&bytes).unwrap();
}

#[test]
fn user_sgpr_count_must_hold_the_enabled_sgprs() {
    // gfx90a saxpy: private segment buffer (4) + kernarg segment ptr (2).
    let (mut bytes, kd) = object("gfx90a", "saxpy");
    assert_eq!((read_u32(&bytes, kd + RSRC2) >> 1) & 0x1f, 6);
    set_user_sgpr_count(&mut bytes, kd, 5);
    assert_eq!(
        fault(&bytes, "saxpy", "gfx90a"),
        DescriptorFault::UserSgprCountTooSmall {
            count: 5,
            implied: 6
        }
    );
    // Enabling the dispatch ptr without counting it.
    let (mut bytes, kd) = object("gfx942", "saxpy");
    set_property(&mut bytes, kd, 1, true);
    assert_eq!(
        fault(&bytes, "saxpy", "gfx942"),
        DescriptorFault::UserSgprCountTooSmall {
            count: 2,
            implied: 4
        }
    );
    // More than the 16 user data registers of GFX9.
    let (mut bytes, kd) = object("gfx942", "saxpy");
    set_user_sgpr_count(&mut bytes, kd, 17);
    assert_eq!(
        fault(&bytes, "saxpy", "gfx942"),
        DescriptorFault::TooManyUserSgprs { count: 17, max: 16 }
    );
}

#[test]
fn gfx11_descriptors_keep_their_own_fields() {
    // RSRC3 is SHARED_VGPR_COUNT / INST_PREF_SIZE and wave32 is legal on
    // gfx11: the GFX9 rules do not apply.
    let (mut bytes, kd) = object("gfx1100", "saxpy");
    write_u32(&mut bytes, kd + RSRC3, 0x3f0);
    set_property(&mut bytes, kd, 10, true);
    CodeObject::parse(&bytes).unwrap();
}

#[test]
fn gfx9_processors_without_the_unified_register_file_reserve_rsrc3() {
    // gfx90a's saxpy (RSRC3 = ACCUM_OFFSET field 1) with e_flags naming
    // gfx908, whose COMPUTE_PGM_RSRC3 is reserved and 0.
    const E_FLAGS: usize = 48;
    let (mut bytes, kd) = object("gfx90a", "saxpy");
    let e_flags = read_u32(&bytes, E_FLAGS);
    assert_eq!(e_flags & 0xff, 0x3f, "EF_AMDGPU_MACH_AMDGCN_GFX90A");
    write_u32(&mut bytes, E_FLAGS, e_flags & !0xff | 0x30);
    assert_eq!(
        fault(&bytes, "saxpy", "gfx908"),
        DescriptorFault::Rsrc3Reserved {
            gfx: "gfx908".into(),
            bits: 1
        }
    );
    // With RSRC3 cleared it loads, and gfx908 has no ACCUM_OFFSET.
    write_u32(&mut bytes, kd + RSRC3, 0);
    let co = CodeObject::parse(&bytes).unwrap();
    assert_eq!(co.kernel("saxpy").unwrap().accum_offset, None);
}
