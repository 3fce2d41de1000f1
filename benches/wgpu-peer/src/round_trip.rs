//! Empty-dispatch round trip on lavapipe: the wgpu side of the "empty round
//! trip µs" figure. Per sample: record one dispatch of an empty kernel
//! (32 invocations, no bindings, as gfxsim's empty.co is dispatched), then
//! time queue.submit + device.poll(wait) until completion. The time with
//! recording included is reported too. 50 untimed warm-up samples first.

use std::time::{Duration, Instant};

use crate::gpu::Gpu;
use crate::stats::{median, micros, quantile};

const EMPTY_WGSL: &str = r#"
@compute @workgroup_size(32)
fn empty() {}
"#;

const WARM_UP: usize = 50;

pub fn run(gpu: &Gpu, samples: usize) -> Result<serde_json::Value, String> {
    if samples == 0 {
        return Err("round-trip needs --samples > 0".into());
    }
    let pipeline = gpu.pipeline("empty", EMPTY_WGSL, "empty");
    let mut submit_wait: Vec<Duration> = Vec::with_capacity(samples);
    let mut with_encode: Vec<Duration> = Vec::with_capacity(samples);
    for i in 0..samples + WARM_UP {
        let start = Instant::now();
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
            pass.set_pipeline(&pipeline);
            pass.dispatch_workgroups(1, 1, 1);
        }
        let commands = encoder.finish();
        let submit = Instant::now();
        gpu.queue.submit([commands]);
        gpu.wait()?;
        let end = Instant::now();
        if i >= WARM_UP {
            submit_wait.push(end - submit);
            with_encode.push(end - start);
        }
    }
    Ok(serde_json::json!({
        "measurement": "round-trip",
        "samples": samples,
        "median_us": micros(median(&submit_wait)),
        "p10_us": micros(quantile(&submit_wait, 0.1)),
        "p90_us": micros(quantile(&submit_wait, 0.9)),
        "median_with_encode_us": micros(median(&with_encode)),
        "timed": "queue.submit + device.poll(wait_indefinitely) of one recorded empty dispatch",
        "peer": gpu.describe(),
    }))
}
