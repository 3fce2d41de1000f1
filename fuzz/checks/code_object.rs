//! Fuzz checks: the code-object loader on arbitrary bytes.
//!
//! The bytes go through every public entry point of aqueduct-hsa's
//! code_object module that reads untrusted input: ELF parsing (identification,
//! program headers, the msgpack metadata note, kernel descriptors, dynamic
//! relocations), image loading with relocation at a chosen base, kernarg
//! layout from the argument metadata, and offload bundles (plain and
//! compressed) with selection for several agents. Errors are expected;
//! a panic, an abort or an absurd allocation is a finding. Seeded with the
//! checked-in code objects and bundles (see fuzz/README.md).
//!
//! The checks live here, apart from libFuzzer, so the fuzz target
//! (`fuzz_targets/code_object.rs`) and the corpus replay that runs in every
//! `cargo test` use the same code.

use aqueduct_hsa::code_object::{
    ArgRef, Bundle, CodeObject, DispatchShape, IsaName, KernargBuilder, code_object_for_agent,
};

/// The largest image the target actually loads (parsing bounds the image
/// size by itself; this only keeps each execution cheap).
const LOAD_LIMIT: u64 = 1 << 22;

fn exercise_object(co: &CodeObject) {
    let _ = (co.isa(), co.code_object_version(), co.e_flags());
    let _ = (co.metadata_version(), co.target(), co.functions());
    let _ = (co.code_ranges(), co.relocation_count());
    let size = co.image_size();
    assert!(
        size <= 1 << 30,
        "image size {size:#x} over the loader's limit"
    );
    let align = co.image_align();
    assert!(align.is_power_of_two(), "image alignment {align:#x}");
    if size <= LOAD_LIMIT {
        let mut image = vec![0u8; size as usize];
        let _ = co.load_image(&mut image, align.saturating_mul(3));
        // A destination of the wrong size is an error, not a panic.
        let _ = co.load_image(&mut image[..(size as usize) / 2], align);
    }
    for kernel in co.kernels() {
        let _ = co.require_kernel(&kernel.name);
        let _ = kernel.entry_offset();
        let mut builder = KernargBuilder::new(kernel);
        let sizes: Vec<u32> = kernel.explicit_args().map(|a| a.size).collect();
        for (i, size) in sizes.into_iter().enumerate() {
            let bytes = vec![0xab; (size as usize).min(1 << 16)];
            let _ = builder.set(ArgRef::Index(i), &bytes);
            if let Some(name) = kernel
                .explicit_args()
                .nth(i)
                .and_then(|a| a.name.as_deref())
            {
                let _ = builder.set_u32(ArgRef::Name(name), 7);
            }
        }
        let _ = builder.set_u64(ArgRef::Index(usize::MAX), 1);
        for shape in [
            DispatchShape::new([100, 3, 2], [64, 1, 1], 3),
            DispatchShape::linear(1, 1),
            DispatchShape::new([u32::MAX, u32::MAX, u32::MAX], [1024, 1, 1], 3),
        ] {
            if let Ok(bytes) = builder.finish(&shape) {
                assert_eq!(bytes.len(), kernel.kernarg_segment_size as usize);
            }
        }
    }
}

/// Run the target's invariants on one input (panics on a finding).
pub fn check(bytes: &[u8]) {
    if let Ok(co) = CodeObject::parse(bytes) {
        exercise_object(&co);
    }
    let agents = ["gfx1100", "gfx942", "gfx90a:xnack+", "gfx1030"].map(IsaName::parse);
    if Bundle::is_bundle(bytes)
        && let Ok(bundle) = Bundle::parse(bytes)
    {
        for entry in &bundle.entries {
            let _ = entry.isa();
            if let Ok(co) = CodeObject::parse(&entry.bytes) {
                exercise_object(&co);
            }
        }
        for agent in agents.iter().flatten() {
            let _ = bundle.select(agent);
        }
    }
    for agent in agents.iter().flatten() {
        if let Ok(object) = code_object_for_agent(bytes, agent)
            && let Ok(co) = CodeObject::parse(&object)
        {
            exercise_object(&co);
        }
    }
}
