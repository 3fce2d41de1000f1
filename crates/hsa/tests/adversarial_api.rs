//! The HSA API given hostile sizes and bytes, row by row: queue sizes,
//! allocation sizes in every pool, code objects that are empty, random,
//! truncated or corrupted. Each invalid row must return a typed error
//! (never panic, abort or allocate the impossible), each valid row must
//! work, and the runtime must keep working afterwards (a dispatch runs and
//! gives the host's result).

use aqueduct_hsa::PoolKind;
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Rng, kernel_file, read_u32};
use aqueduct_test_support::bytes::bytes_of;

/// After the hostile rows: a copy kernel still runs and gives the input.
fn still_works(gpu: &Gpu) {
    let program = gpu.load("vector_copy");
    let input: Vec<u32> = (0..256).map(|i| i * 7 + 1).collect();
    let src = gpu.upload_u32(&input);
    let dst = gpu.alloc(256 * 4);
    gpu.run(
        &program.kernel,
        &[
            Arg::Ptr(src.gpu_va()),
            Arg::Ptr(dst.gpu_va()),
            Arg::U32(256),
        ],
        [256, 1, 1],
        [64, 1, 1],
    )
    .expect("a dispatch after the hostile rows");
    assert_eq!(read_u32(&dst, 256), input);
}

#[test]
fn queue_sizes_past_the_limits_are_errors() {
    let gpu = Gpu::new();
    // (packets, valid): a power of two within the agent's range only.
    let rows: [(u32, bool); 8] = [
        (0, false),
        (1, false),
        (3, false),
        (100, false),
        (64, true),
        (1 << 31, false),
        (u32::MAX, false),
        (4096, true),
    ];
    for (packets, valid) in rows {
        let got = gpu.rt.create_queue(&gpu.agent, packets);
        assert_eq!(got.is_ok(), valid, "{packets} packets: {:?}", got.err());
    }
    still_works(&gpu);
}

#[test]
fn impossible_allocations_are_errors_in_every_pool() {
    let gpu = Gpu::new();
    for kind in [
        PoolKind::CoarseDevice,
        PoolKind::FineSystem,
        PoolKind::Kernarg,
    ] {
        let pool = gpu.rt.pool(&gpu.agent, kind).expect("pool");
        for size in [0, u64::MAX, u64::MAX / 2, 1 << 50] {
            let got = pool.allocate(size);
            assert!(got.is_err(), "{kind:?}: {size} bytes allocated");
        }
        // Just valid sizes work.
        for size in [1, 4095, 4097] {
            let a = pool
                .allocate(size)
                .unwrap_or_else(|e| panic!("{kind:?} {size}: {e}"));
            assert!(a.len() >= size);
        }
    }
    still_works(&gpu);
}

#[test]
fn hostile_code_objects_are_errors() {
    let gpu = Gpu::new();
    let real = kernel_file("vector_copy.co");
    let random = bytes_of(&Rng::new(0x9E37_79B9_7F4A_7C15).u32s(2048));
    let mut corrupted_sections = real.clone();
    corrupted_sections[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
    let mut corrupted_phdrs = real.clone();
    corrupted_phdrs[0x20..0x28].copy_from_slice(&(real.len() as u64 - 8).to_le_bytes());
    let mut random_with_magic = random.clone();
    random_with_magic[..4].copy_from_slice(b"\x7fELF");
    let rows: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("random", random),
        ("random with ELF magic", random_with_magic),
        ("ELF magic only", b"\x7fELF".to_vec()),
        ("first 64 bytes", real[..64].to_vec()),
        ("first half", real[..real.len() / 2].to_vec()),
        ("section headers past the end", corrupted_sections),
        ("program headers at the end", corrupted_phdrs),
        (
            "offload bundle magic only",
            b"__CLANG_OFFLOAD_BUNDLE__".to_vec(),
        ),
    ];
    for (what, bytes) in rows {
        let got = gpu.rt.load_executable(&gpu.agent, &bytes);
        assert!(got.is_err(), "{what}: loaded");
    }
    still_works(&gpu);
}
