//! The facade on gfxsim's GFX9 parts (MI300X, gfx942; an MI250X GCD,
//! gfx90a): the adapter comes up on the part, the part's vector_copy code
//! object makes a pipeline whose dispatches run, and the facade's own copy
//! kernels for the target (a buffer-to-buffer copy into a readback buffer)
//! bring the result back.

use std::borrow::Cow;

use aqueduct::gfxsim::{SimConfig, SimPart};
use aqueduct::*;
use aqueduct_test_harness::facade::*;

#[test]
fn vector_copy_and_the_facade_s_copies_run_on_both_gfx9_parts() {
    for (part, gfx) in [(SimPart::Mi300x, "gfx942"), (SimPart::Mi250xGcd, "gfx90a")] {
        let (c, sim) = sim_ctx_with(SimConfig {
            part,
            threads: 1,
            vram_size: 2 << 30,
            ..SimConfig::default()
        });
        let code = aqueduct_test_support::repo::kernel(&format!("{gfx}/vector_copy.co"));
        let module = code_object_module(&c.device, "vector_copy", Cow::Owned(code), [64, 1, 1]);
        let p = expect_valid(&c.device, || {
            auto_pipeline(&c.device, &module, "vector_copy")
        });
        let words: Vec<u32> = (0..200).map(|i| i * 7 + 3).collect();
        let src = storage_init(&c.device, &words);
        let dst = storage(&c.device, 4 * words.len() as u64);
        let bg = bind_group(&c.device, &p, 0, &[&src, &dst]);
        let scope = c.device.push_error_scope(ErrorFilter::Internal);
        let mut enc = c.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&p);
            pass.set_immediates(0, &(words.len() as u32).to_le_bytes());
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups(4, 1, 1);
        }
        c.queue.submit([enc.finish()]);
        let got = read_words(&c, &dst);
        if let Some(e) = scope.pop_now() {
            panic!("{gfx}: {e}: {:?}", wave_error(&sim, &e));
        }
        assert_eq!(got, words, "{gfx}");
    }
}
