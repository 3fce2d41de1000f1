//! vector_copy: the HSA-level "hello world", after ROCR's vector_copy sample.
//!
//! Init the runtime on the default device (gfxsim unless /dev/kfd has a
//! GPU), find the GPU agent and its pools, load the vector_copy code object
//! for the agent's ISA, create an AQL queue and a completion signal, fill
//! the kernel arguments, dispatch, wait, and verify the copy on the host.

use std::time::Duration;

use aqueduct::hsa::code_object::{ArgRef, DispatchShape, KernargBuilder};
use aqueduct::hsa::{MemoryOrder, PoolKind, Runtime, WaitCondition, WaitHint};

/// The vector_copy kernel for each ISA the repository ships objects for.
const CODE_OBJECTS: &[(&str, &[u8])] = &[
    (
        "gfx1100",
        include_bytes!("../kernels/gfx1100/vector_copy.co"),
    ),
    ("gfx942", include_bytes!("../kernels/gfx942/vector_copy.co")),
    ("gfx90a", include_bytes!("../kernels/gfx90a/vector_copy.co")),
];

const ELEMENTS: u32 = 1 << 20;
const WORKGROUP: u16 = 256;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs to stderr, filtered by RUST_LOG (e.g. `RUST_LOG=aqueduct=trace`
    // shows every submission and dispatch); errors only when it is unset.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .try_init();
    let device = aqueduct::default_device()?;
    let runtime = Runtime::new(device)?;
    let agent = runtime.gpu_agent(0)?;
    println!(
        "agent: {} ({}, {} CUs, wave{}) on {}",
        agent.product_name,
        agent.isa_name.as_deref().unwrap_or("?"),
        agent.compute_unit_count,
        agent.wavefront_size,
        runtime.device().backend_name()
    );

    let code = CODE_OBJECTS
        .iter()
        .find(|(gfx, _)| *gfx == agent.name)
        .map(|(_, bytes)| *bytes)
        .ok_or_else(|| {
            format!(
                "no vector_copy code object for {} in this build",
                agent.name
            )
        })?;
    let executable = runtime.load_executable(agent, code)?;
    let kernel = executable.kernel("vector_copy")?;

    // Buffers in fine-grained system memory, so the host can fill and check them.
    let bytes = ELEMENTS as u64 * 4;
    let pool = runtime.pool(agent, PoolKind::FineSystem)?;
    let mut src = pool.allocate(bytes)?;
    let dst = pool.allocate(bytes)?;
    let src_words: &mut [u32] =
        bytemuck::cast_slice_mut(src.as_mut_slice().ok_or("src not host mapped")?);
    for (i, w) in src_words.iter_mut().enumerate() {
        *w = (i as u32).wrapping_mul(2_654_435_761);
    }

    // Kernel arguments, explicit and hidden, as the code object's metadata lays them out.
    let shape = DispatchShape::linear(ELEMENTS, WORKGROUP as u32);
    let kernarg_bytes = KernargBuilder::new(&kernel.info)
        .set_ptr(ArgRef::Name("src"), src.gpu_va())?
        .set_ptr(ArgRef::Name("dst"), dst.gpu_va())?
        .set_u32(ArgRef::Name("n"), ELEMENTS)?
        .finish(&shape)?;
    let mut kernargs = runtime
        .kernargs(agent)?
        .allocate(kernarg_bytes.len() as u64)?;
    kernargs.as_mut_slice()[..kernarg_bytes.len()].copy_from_slice(&kernarg_bytes);

    let queue = runtime.create_queue(agent, 256)?;
    let done = runtime.create_signal(1)?;
    let mut dispatch = kernel.dispatch(kernargs.gpu_va(), [ELEMENTS, 1, 1], [WORKGROUP, 1, 1]);
    dispatch.completion_signal = done.handle();
    let start = std::time::Instant::now();
    queue.submit_dispatch(&dispatch.to_packet()?)?;
    done.wait(
        WaitCondition::Eq,
        0,
        Some(Duration::from_secs(60)),
        WaitHint::Blocked,
    )?;
    let elapsed = start.elapsed();
    assert_eq!(done.load(MemoryOrder::Acquire), 0);

    let dst_words: &[u32] = bytemuck::cast_slice(dst.as_slice().ok_or("dst not host mapped")?);
    let src_words: &[u32] = bytemuck::cast_slice(src.as_slice().ok_or("src not host mapped")?);
    if let Some(i) = (0..ELEMENTS as usize).find(|&i| dst_words[i] != src_words[i]) {
        eprintln!(
            "FAILED: dst[{i}] = {:#x}, expected {:#x}",
            dst_words[i], src_words[i]
        );
        std::process::exit(1);
    }
    println!(
        "copied {} u32 in {:.2} ms",
        ELEMENTS,
        elapsed.as_secs_f64() * 1e3
    );
    println!("PASSED");
    Ok(())
}
