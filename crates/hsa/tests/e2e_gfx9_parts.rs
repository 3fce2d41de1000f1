//! End to end through aqueduct-hsa on gfxsim's GFX9 parts (MI300X, gfx942;
//! an MI250X GCD, gfx90a): the runtime comes up on their topology (agent
//! ISA, CUs, wave size, XCC context-save areas), loads their code objects
//! (`kernels/gfx942`, `kernels/gfx90a`) and runs them, results compared with
//! a host computation.

use aqueduct_gfxsim::{SimConfig, SimPart};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Rng, read_u32};
use aqueduct_test_support::repo;

fn gpu_of(part: SimPart) -> Gpu {
    Gpu::with_config(SimConfig {
        part,
        threads: 2,
        vram_size: 2 << 30,
        ..SimConfig::default()
    })
}

/// The two GFX9 parts and their code-object directories.
fn parts() -> [(SimPart, &'static str); 2] {
    [(SimPart::Mi300x, "gfx942"), (SimPart::Mi250xGcd, "gfx90a")]
}

#[test]
fn mi300x_agent() {
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
}

#[test]
fn mi250x_gcd_agent() {
    let gpu = gpu_of(SimPart::Mi250xGcd);
    assert_eq!(gpu.agent.name, "gfx90a");
    assert_eq!(gpu.agent.compute_unit_count, 110);
    assert_eq!(gpu.agent.wavefront_size, 64);
    assert_eq!(gpu.agent.cwsr_sizes.map(|c| c.num_xcc), Some(1));
}

/// histogram_global: one global atomic add per byte (a skewed input puts
/// most of them on one address), grids ending in partial workgroups.
#[test]
fn histogram_global_counts_every_byte() {
    for (part, gfx) in parts() {
        let gpu = gpu_of(part);
        let program = gpu
            .load_bytes(
                &repo::kernel(&format!("{gfx}/histogram_global.co")),
                "histogram_global",
            )
            .unwrap_or_else(|e| panic!("{gfx}: {e}"));
        let queue = gpu.queue(64);
        let mut rng = Rng::new(5);
        let data: Vec<u8> = (0..3000)
            .map(|_| {
                let r = rng.u32();
                if r % 4 == 0 { 7 } else { (r >> 8) as u8 }
            })
            .collect();
        for wg in [64u16, 256, 100] {
            let input = gpu.upload(&data);
            // The last word is past the bins: it must stay 0.
            let bins = gpu.filled_u32(257, 0);
            let n = data.len() as u32;
            let launch = gpu.launch(
                &program.kernel,
                &[
                    Arg::Ptr(input.gpu_va()),
                    Arg::Ptr(bins.gpu_va()),
                    Arg::U32(n),
                ],
                [n, 1, 1],
                [wg, 1, 1],
            );
            gpu.run_on(&queue, &launch)
                .unwrap_or_else(|e| panic!("{gfx} wg {wg}: {e}"));
            let mut want = vec![0u32; 257];
            for &b in &data {
                want[b as usize] += 1;
            }
            assert_eq!(read_u32(&bins, 257), want, "{gfx} wg {wg}");
        }
    }
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
