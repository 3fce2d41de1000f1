//! End to end through aqueduct-hsa on gfxsim's GFX9 parts (MI300X, gfx942;
//! an MI250X GCD, gfx90a): the runtime comes up on their topology (agent
//! ISA, CUs, wave size, XCC context-save areas), loads their code objects,
//! and a dispatch, which gfxsim cannot execute yet, stops the queue as an
//! illegal instruction whose gfxsim detail names the kernel object and
//! says why. The queue recovers and memory stays usable: the device
//! survives.

use aqueduct_gfxsim::{SimConfig, SimPart};
use aqueduct_hsa::{HsaError, QueueErrorReason};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, read_f32};
use aqueduct_test_support::repo;

fn gpu_of(part: SimPart) -> Gpu {
    Gpu::with_config(SimConfig {
        part,
        threads: 1,
        vram_size: 2 << 30,
        ..SimConfig::default()
    })
}

/// Dispatch `<gfx>/saxpy.co` on `gpu`; it must be refused, leave y as it
/// was, and the device must go on working.
fn saxpy_is_refused(gpu: &Gpu, gfx: &str) {
    let program = gpu
        .load_bytes(&repo::kernel(&format!("{gfx}/saxpy.co")), "saxpy")
        .unwrap_or_else(|e| panic!("loading {gfx}/saxpy.co: {e}"));
    let n = 256u32;
    let x = gpu.upload_f32(&vec![1.0; n as usize]);
    let y = gpu.upload_f32(&vec![2.0; n as usize]);
    let args = [
        Arg::F32(3.0),
        Arg::Ptr(x.gpu_va()),
        Arg::Ptr(y.gpu_va()),
        Arg::U32(n),
    ];
    let queue = gpu.queue(64);
    for attempt in 0..2 {
        let launch = gpu.launch(&program.kernel, &args, [n, 1, 1], [64, 1, 1]);
        match gpu.run_on(&queue, &launch) {
            Err(HsaError::QueueError {
                queue_id,
                reason: QueueErrorReason::IllegalInstruction,
                ..
            }) => {
                let detail = gpu.sim.wave_error(queue_id).expect("gfxsim's account");
                assert!(
                    detail.contains(&format!("gfxsim does not execute {gfx} code yet")),
                    "{detail}"
                );
                assert!(
                    detail.contains(&format!("{:#x}", program.kernel.kernel_object)),
                    "the detail names the kernel object: {detail}"
                );
            }
            other => panic!("{gfx} attempt {attempt}: expected a refusal, got {other:?}"),
        }
    }
    assert_eq!(read_f32(&y, n as usize), vec![2.0; n as usize]);
    // The device survives: memory is still allocated, written and read.
    let z = gpu.upload_f32(&[5.0, 6.0]);
    assert_eq!(read_f32(&z, 2), [5.0, 6.0]);
}

#[test]
fn mi300x_agent_and_refused_dispatch() {
    let gpu = gpu_of(SimPart::Mi300x);
    assert_eq!(gpu.agent.name, "gfx942");
    assert_eq!(
        gpu.agent.isa_name.as_deref(),
        Some("amdgcn-amd-amdhsa--gfx942")
    );
    assert_eq!(gpu.agent.compute_unit_count, 304);
    assert_eq!(gpu.agent.wavefront_size, 64);
    assert_eq!(gpu.agent.max_waves_per_cu, 32);
    assert_eq!(gpu.agent.lds_size, 64 << 10);
    assert_eq!(gpu.agent.cwsr_sizes.map(|c| c.num_xcc), Some(8));
    saxpy_is_refused(&gpu, "gfx942");
}

#[test]
fn mi250x_gcd_agent_and_refused_dispatch() {
    let gpu = gpu_of(SimPart::Mi250xGcd);
    assert_eq!(gpu.agent.name, "gfx90a");
    assert_eq!(gpu.agent.compute_unit_count, 110);
    assert_eq!(gpu.agent.wavefront_size, 64);
    assert_eq!(gpu.agent.cwsr_sizes.map(|c| c.num_xcc), Some(1));
    saxpy_is_refused(&gpu, "gfx90a");
}

#[test]
fn gfx1100_code_does_not_load_on_a_gfx942_agent() {
    let gpu = gpu_of(SimPart::Mi300x);
    let err = gpu
        .load_bytes(&repo::kernel("gfx1100/saxpy.co"), "saxpy")
        .err()
        .expect("gfx1100 code on a gfx942 agent");
    assert!(err.to_string().contains("gfx942"), "{err}");
}
