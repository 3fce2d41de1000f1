//! The facade under gfxsim's strict coherence mode: coarse buffers live in
//! per-GPU copies that only system-scope fences move, so a missing fence or
//! ownership transfer would read stale data here.
//!
//! Representative work — write_buffer, buffers created with contents,
//! dispatch chains with hazards inside and across submissions, clears,
//! copies into MAP_READ buffers, mapping and unmapping, MAP_WRITE uploads —
//! must give exactly the host-computed results with zero coherence reports,
//! and the mode must really have run (coarse copies made, releases done).
//!
//! Each test's device is a gfxsim made with `SimConfig::strict_coherence`
//! (a value given to `Instance::from_device`, not the environment).

use aqueduct_test_harness::facade::*;

use aqueduct::*;
use aqueduct_gfxsim::{SimConfig, process_coherence_reports, process_coherence_stats};

fn strict_ctx() -> Ctx {
    sim_ctx_with(SimConfig {
        strict_coherence: true,
        ..Default::default()
    })
    .0
}

/// Zero reports so far in this process, and strict mode active.
#[track_caller]
fn assert_coherent() {
    let reports = process_coherence_reports();
    assert!(
        reports.is_empty(),
        "strict coherence reports:\n{}",
        reports
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let stats = process_coherence_stats();
    assert!(
        stats.cached_mappings > 0,
        "strict mode did not run: {stats:?}"
    );
    assert!(stats.releases > 0, "no system-scope release ran: {stats:?}");
}

fn words(n: u32, seed: u32) -> Vec<u32> {
    (0..n)
        .map(|i| {
            (i ^ seed)
                .wrapping_mul(2_654_435_761)
                .rotate_left(seed % 31)
        })
        .collect()
}

/// vector_copy src -> dst of n words in `enc`.
fn record_copy_kernel(
    c: &Ctx,
    enc: &mut CommandEncoder,
    pipeline: &ComputePipeline,
    src: &Buffer,
    dst: &Buffer,
    n: u32,
) {
    let bg = bind_group(&c.device, pipeline, 0, &[src, dst]);
    let mut pass = enc.begin_compute_pass(&Default::default());
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, &bg, &[]);
    pass.set_immediates(0, &n.to_le_bytes());
    pass.dispatch_workgroups(n.div_ceil(64), 1, 1);
}

#[test]
fn write_buffer_then_dispatch_chain_then_readback() {
    let c = strict_ctx();
    let n = 1000u32;
    let input = words(n, 3);
    let a = storage(&c.device, n as u64 * 4);
    let b = storage(&c.device, n as u64 * 4);
    let d = storage(&c.device, n as u64 * 4);
    c.queue.write_buffer(&a, 0, bytemuck::cast_slice(&input));
    let module = kernel_module(&c.device, "vector_copy", [64, 1, 1]);
    let p = auto_pipeline(&c.device, &module, "vector_copy");
    // a -> b -> d in one submission (RAW on b).
    let mut enc = c.device.create_command_encoder(&Default::default());
    record_copy_kernel(&c, &mut enc, &p, &a, &b, n);
    record_copy_kernel(&c, &mut enc, &p, &b, &d, n);
    c.queue.submit([enc.finish()]);
    assert_eq!(read_words(&c, &d), input);
    // A second write into a, then d -> b and a -> d across submissions
    // (WAR on d within the second).
    let second = words(n, 11);
    c.queue.write_buffer(&a, 0, bytemuck::cast_slice(&second));
    let mut enc = c.device.create_command_encoder(&Default::default());
    record_copy_kernel(&c, &mut enc, &p, &d, &b, n);
    record_copy_kernel(&c, &mut enc, &p, &a, &d, n);
    c.queue.submit([enc.finish()]);
    assert_eq!(read_words(&c, &b), input);
    assert_eq!(read_words(&c, &d), second);
    assert_coherent();
}

#[test]
fn repeated_in_place_saxpy_keeps_every_step() {
    let c = strict_ctx();
    let module = kernel_module(&c.device, "saxpy", [128, 1, 1]);
    let p = auto_pipeline(&c.device, &module, "saxpy");
    let n = 777u32;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y0: Vec<f32> = (0..n).map(|i| 100.0 - i as f32).collect();
    let xb = storage_init(&c.device, bytemuck::cast_slice(&x));
    let yb = storage_init(&c.device, bytemuck::cast_slice(&y0));
    let bg = bind_group(&c.device, &p, 0, &[&xb, &yb]);
    let steps = 5;
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.set_immediates(0, &2.5f32.to_le_bytes());
        pass.set_immediates(4, &n.to_le_bytes());
        for _ in 0..steps {
            pass.dispatch_workgroups(n.div_ceil(128), 1, 1);
        }
    }
    c.queue.submit([enc.finish()]);
    let mut want = y0.clone();
    for _ in 0..steps {
        for (w, xi) in want.iter_mut().zip(&x) {
            *w += 2.5 * xi;
        }
    }
    let got: Vec<f32> = read_words(&c, &yb)
        .into_iter()
        .map(f32::from_bits)
        .collect();
    assert_eq!(got, want);
    assert_coherent();
}

#[test]
fn clears_and_copies_between_coarse_buffers() {
    let c = strict_ctx();
    let n = 1300usize;
    let src_words = words(n as u32, 5);
    let dst_words = words(n as u32, 9);
    let src = storage_init(&c.device, &src_words);
    let dst = storage_init(&c.device, &dst_words);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&src, 48, &dst, 160, 4 * 1003);
    enc.clear_buffer(&src, 4 * 300, Some(4 * 517));
    enc.copy_buffer_to_buffer(&src, 0, &dst, 0, 4 * 16);
    c.queue.submit([enc.finish()]);
    let mut want_src = src_words.clone();
    want_src[300..817].fill(0);
    let mut want_dst = dst_words.clone();
    want_dst[40..40 + 1003].copy_from_slice(&src_words[12..12 + 1003]);
    want_dst[..16].copy_from_slice(&want_src[..16]);
    assert_eq!(read_words(&c, &dst), want_dst);
    assert_eq!(read_words(&c, &src), want_src);
    assert_coherent();
}

#[test]
fn map_write_upload_dispatch_and_map_read_download() {
    let c = strict_ctx();
    let n = 512u32;
    let input = words(n, 17);
    let upload = c.device.create_buffer(&BufferDescriptor {
        label: Some("upload"),
        size: n as u64 * 4,
        usage: BufferUsages::MAP_WRITE | BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    // Map for writing, fill, unmap: the host owns the buffer, then the GPU.
    let (tx, rx) = std::sync::mpsc::channel();
    upload.map_async(MapMode::Write, .., move |r| {
        let _ = tx.send(r);
    });
    c.device.poll(PollType::wait_indefinitely()).expect("poll");
    rx.recv().expect("map callback").expect("map_async");
    upload
        .get_mapped_range_mut(..)
        .expect("mapped range")
        .copy_from_slice(bytemuck::cast_slice(&input));
    upload.unmap();
    let mid = storage(&c.device, n as u64 * 4);
    let out = storage(&c.device, n as u64 * 4);
    let module = kernel_module(&c.device, "vector_copy", [64, 1, 1]);
    let p = auto_pipeline(&c.device, &module, "vector_copy");
    let download = readback_buffer(&c.device, n as u64 * 4);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&upload, 0, &mid, 0, n as u64 * 4);
    record_copy_kernel(&c, &mut enc, &p, &mid, &out, n);
    enc.copy_buffer_to_buffer(&out, 0, &download, 0, n as u64 * 4);
    c.queue.submit([enc.finish()]);
    let bytes = aqueduct::util::read_mapped(&c.device, &download).expect("readback");
    assert_eq!(bytemuck::cast_slice::<u8, u32>(&bytes), &input[..]);
    // The MAP_READ buffer again after the GPU overwrote it: the second
    // mapping sees the new data, not the first.
    let second = words(n, 23);
    c.queue.write_buffer(&mid, 0, bytemuck::cast_slice(&second));
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&mid, 0, &download, 0, n as u64 * 4);
    c.queue.submit([enc.finish()]);
    let bytes = aqueduct::util::read_mapped(&c.device, &download).expect("readback");
    assert_eq!(bytemuck::cast_slice::<u8, u32>(&bytes), &second[..]);
    assert_coherent();
}
