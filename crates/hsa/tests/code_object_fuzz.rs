//! Robustness: thousands of seeded mutations (bit flips, truncations, random
//! byte runs, "interesting" integers in header fields, mutations aimed at the
//! ELF/program headers and at the metadata note) of the checked-in code
//! objects and bundles. Parsing, selecting, loading and kernarg building may
//! return errors but must never panic, and must never ask for absurd memory.

use std::panic::{AssertUnwindSafe, catch_unwind};

use aqueduct_test_support::Rng;

use aqueduct_hsa::code_object::{
    ArgRef, Bundle, CodeObject, DispatchShape, IsaName, KernargBuilder, code_object_for_agent,
};
use aqueduct_test_support::repo::kernel as kernel_file;

/// Apply one random mutation; returns its description.
fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) -> String {
    let len = bytes.len();
    match rng.index(7) {
        0 => {
            let flips = 1 + rng.index(4);
            for _ in 0..flips {
                let at = rng.index(len);
                bytes[at] ^= 1 << rng.index(8);
            }
            format!("{flips} bit flips")
        }
        1 => {
            let cut = rng.index(len);
            bytes.truncate(cut);
            format!("truncate to {cut}")
        }
        2 => {
            let at = rng.index(len);
            let run = (1 + rng.index(16)).min(len - at);
            for b in &mut bytes[at..at + run] {
                *b = rng.u64() as u8;
            }
            format!("{run} random bytes at {at:#x}")
        }
        3 => {
            // ELF header and program headers (or a bundle's header and entry table).
            let at = rng.index(0x200.min(len));
            bytes[at] = rng.u64() as u8;
            format!("header byte {at:#x}")
        }
        4 => {
            // The metadata note region of the code objects (past 0x200).
            let at = 0x200 + rng.index(0x600.min(len.saturating_sub(0x200)));
            if at < len {
                bytes[at] ^= 1 << rng.index(8);
            }
            format!("note bit at {at:#x}")
        }
        5 => {
            const INTERESTING: [u64; 8] = [
                0,
                1,
                0x7f,
                0xffff,
                0xffff_ffff,
                0x8000_0000_0000_0000,
                u64::MAX,
                0x1000,
            ];
            let value = INTERESTING[rng.index(INTERESTING.len())];
            let width = if rng.index(2) == 0 { 4 } else { 8 };
            let at = rng.index(0x200.min(len) / width) * width;
            if at + width <= len {
                bytes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
            }
            format!("{width}-byte {value:#x} at {at:#x}")
        }
        _ => {
            // Duplicate a random chunk over another place.
            let from = rng.index(len);
            let to = rng.index(len);
            let run = (1 + rng.index(64)).min(len - from).min(len - to);
            let chunk = bytes[from..from + run].to_vec();
            bytes[to..to + run].copy_from_slice(&chunk);
            format!("copy {run} bytes {from:#x} -> {to:#x}")
        }
    }
}

#[derive(Default)]
struct Tally {
    parsed: usize,
    rejected: usize,
    loaded: usize,
}

fn exercise_object(co: &CodeObject, tally: &mut Tally) {
    let size = co.image_size();
    assert!(
        size <= 1 << 30,
        "image size {size:#x} exceeds the documented limit"
    );
    assert!(co.image_align().is_power_of_two());
    if size <= 1 << 24 {
        let mut image = vec![0u8; size as usize];
        if co.load_image(&mut image, co.image_align() * 3).is_ok() {
            tally.loaded += 1;
        }
    }
    for kernel in co.kernels() {
        let mut builder = KernargBuilder::new(kernel);
        let sizes: Vec<usize> = kernel.explicit_args().map(|a| a.size as usize).collect();
        for (i, size) in sizes.into_iter().enumerate() {
            let _ = builder.set(ArgRef::Index(i), &vec![0xab; size]);
        }
        if let Ok(bytes) = builder.finish(&DispatchShape::new([100, 3, 2], [64, 1, 1], 3)) {
            assert_eq!(bytes.len(), kernel.kernarg_segment_size as usize);
        }
        let _ = kernel.entry_offset();
    }
}

fn exercise(bytes: &[u8], agents: &[IsaName], tally: &mut Tally) {
    match CodeObject::parse(bytes) {
        Ok(co) => {
            tally.parsed += 1;
            exercise_object(&co, tally);
        }
        Err(_) => tally.rejected += 1,
    }
    if Bundle::is_bundle(bytes) {
        if let Ok(bundle) = Bundle::parse(bytes) {
            for agent in agents {
                let _ = bundle.select(agent);
            }
        }
        for agent in agents {
            let object = code_object_for_agent(bytes, agent);
            if let Ok(co) = object.and_then(|object| CodeObject::parse(&object)) {
                tally.parsed += 1;
                exercise_object(&co, tally);
            }
        }
    }
}

fn fuzz(files: &[&str], iterations: usize, seed: u64) -> Tally {
    let agents: Vec<IsaName> = ["gfx1100", "gfx942", "gfx90a:xnack+"]
        .iter()
        .map(|name| IsaName::parse(name).unwrap())
        .collect();
    let originals: Vec<Vec<u8>> = files.iter().map(|f| kernel_file(f)).collect();
    let mut rng = Rng::new(seed);
    let mut tally = Tally::default();
    for iteration in 0..iterations {
        let which = iteration % originals.len();
        let mut bytes = originals[which].clone();
        let mut applied = Vec::new();
        for _ in 0..1 + rng.index(3) {
            if bytes.is_empty() {
                break;
            }
            applied.push(mutate(&mut rng, &mut bytes));
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| exercise(&bytes, &agents, &mut tally)));
        if outcome.is_err() {
            panic!(
                "panic on iteration {iteration} (seed {seed:#x}) of {}: {applied:?}",
                files[which]
            );
        }
    }
    tally
}

#[test]
fn mutated_code_objects_never_panic() {
    let files = [
        "gfx1100/saxpy.co",
        "gfx942/saxpy.co",
        "gfx90a/saxpy.co",
        "gfx1100/lookup_table.co",
        "gfx1100/multi.co",
        "gfx942/reduce_lds.co",
        "gfx90a/matmul_tiled.co",
    ];
    let tally = fuzz(&files, 3500, 0x5eed_c0de_0bec_7001);
    eprintln!(
        "objects: {} parsed, {} loaded, {} rejected",
        tally.parsed, tally.loaded, tally.rejected
    );
    // The mutations must reach both outcomes: deep paths (loading) and rejections.
    assert!(
        tally.parsed > 200,
        "only {} mutated objects parsed",
        tally.parsed
    );
    assert!(
        tally.loaded > 200,
        "only {} mutated objects loaded",
        tally.loaded
    );
    assert!(
        tally.rejected > 500,
        "only {} mutated objects rejected",
        tally.rejected
    );
}

#[test]
fn mutated_bundles_never_panic() {
    let files = [
        "bundles/saxpy.bundle",
        "bundles/saxpy.zstd.bundle",
        "bundles/saxpy.zlib.bundle",
    ];
    let tally = fuzz(&files, 1500, 0x0b0b_01e5_5eed);
    eprintln!(
        "bundles: {} objects parsed, {} loaded, {} rejected",
        tally.parsed, tally.loaded, tally.rejected
    );
    assert!(
        tally.parsed > 100,
        "only {} code objects came out of mutated bundles",
        tally.parsed
    );
}
