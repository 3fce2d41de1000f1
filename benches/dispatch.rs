//! Facade overheads: aqueduct (on gfxsim) against wgpu 30 on Mesa lavapipe,
//! the same work through both in one run, printed with their ratios.
//!
//! - encode+submit ns per dispatch: one encoder, one compute pass,
//!   set_pipeline once, then per dispatch set_bind_group +
//!   dispatch_workgroups(1, 1, 1), 10k times; finish; one submit. Timed from
//!   create_command_encoder to submit's return (host time only); the work is
//!   waited for untimed, and an atomic counter bumped once per dispatch
//!   proves every dispatch ran. Best of runs.
//! - the same with a distinct buffer (and bind group) per dispatch, 4096
//!   dispatches: the cost of tracking many used buffers.
//! - the same as the first with a timeline trace being written
//!   (`aqueduct::trace::start`, to a file in the temporary directory that
//!   is removed after), and its ratio to the untraced figure: what tracing
//!   costs the host per dispatch.
//! - empty round trip µs: one recorded dispatch of an empty 32-invocation
//!   kernel; timed queue.submit + device.poll(wait). Median, and the
//!   medians of the two calls alone.
//! - 1 MiB readback µs: a kernel writes a seed-dependent pattern into a
//!   STORAGE buffer and it is copied into a MAP_READ buffer (untimed); timed
//!   are map_async + poll(wait) + copying the mapped bytes into a host Vec +
//!   unmap ("map"), and, after a fresh fill, copy_buffer_to_buffer + submit +
//!   the same ("full"); both checked word for word; against a plain memcpy
//!   of 1 MiB in the same process (hot: this thread wrote its source), and
//!   a memcpy of 1 MiB another thread has just written (what copying out
//!   fresh GPU results is: gfxsim's worker threads wrote them), and that
//!   memcpy again after the same GPU fill and wait as the readback, with no
//!   mapping, of bytes written just after or just before that work (and,
//!   alone, writing the 1 MiB destination after it). Median.
//!
//! The wgpu side is benches/wgpu-peer (see benches/peer/mod.rs); its kernels
//! are the WGSL of benches/shaders/, which aqueduct runs precompiled.
//! Run: `cargo bench --bench dispatch` (`-- --quick` for a short run;
//! `-- --only encode-submit|traced|distinct|round-trip|readback` runs one aqueduct
//! part alone, for a profiler, with `--runs N` encode+submit repetitions and
//! `--samples N` round trips, `--bytes N` for another readback size). The
//! machine is noisy: compare the ratios, not the absolute times.

use std::time::{Duration, Instant};

#[path = "peer/mod.rs"]
mod peer;

use aqueduct::*;

fn device() -> (Device, Queue) {
    let instance = Instance::with_device(DeviceChoice::Sim);
    let adapter = instance
        .request_adapter_sync(&RequestAdapterOptions::default())
        .expect("gfxsim adapter");
    let (device, queue) = adapter
        .request_device_sync(&DeviceDescriptor::default())
        .expect("device");
    device.on_uncaptured_error(std::sync::Arc::new(|e| panic!("uncaptured error: {e}")));
    (device, queue)
}

fn pipeline(device: &Device, module: ShaderModuleDescriptor<'_>, entry: &str) -> ComputePipeline {
    let module = device.create_shader_module(module);
    device.create_compute_pipeline(&ComputePipelineDescriptor {
        label: Some(entry),
        layout: None,
        module: &module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}

fn buffer(device: &Device, label: &str, size: u64, usage: BufferUsages) -> Buffer {
    device.create_buffer(&BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    })
}

fn bind_group(device: &Device, pipeline: &ComputePipeline, buffers: &[&Buffer]) -> BindGroup {
    let entries: Vec<BindGroupEntry> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    device.create_bind_group(&BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    })
}

fn wait(device: &Device) {
    device
        .poll(PollType::wait_indefinitely())
        .expect("poll(wait)");
}

/// map_async + poll(wait) + copy into `host` + unmap; returns the time of
/// each part (map until the callback ran, copy out, unmap).
fn read_mapped(device: &Device, buffer: &Buffer, host: &mut [u8]) -> [Duration; 3] {
    let start = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.map_async(MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    wait(device);
    rx.recv().expect("map callback").expect("map");
    let mapped = Instant::now();
    let view = buffer.get_mapped_range(..).expect("mapped range");
    host.copy_from_slice(&view);
    let copied = Instant::now();
    drop(view);
    buffer.unmap();
    let unmapped = copied.elapsed();
    [mapped - start, copied - mapped, unmapped]
}

/// Map `buffer` again (no work in between) and time a second copy-out of
/// the same bytes (now in this core's caches).
fn again(device: &Device, buffer: &Buffer, host: &mut [u8]) -> Duration {
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.map_async(MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    wait(device);
    rx.recv().expect("map callback").expect("map");
    let view = buffer.get_mapped_range(..).expect("mapped range");
    let start = Instant::now();
    host.copy_from_slice(&view);
    let t = start.elapsed();
    drop(view);
    buffer.unmap();
    t
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn micros(t: Duration) -> f64 {
    t.as_secs_f64() * 1e6
}

struct EncodeSubmit {
    best_ns: f64,
    encode_ns: f64,
}

fn encode_submit(dispatches: u32, runs: usize) -> EncodeSubmit {
    let (device, queue) = device();
    let p = pipeline(&device, include_shader!("shaders/gfx1100/bump"), "bump");
    let counter = buffer(
        &device,
        "counter",
        4,
        BufferUsages::STORAGE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
    );
    let staging = buffer(
        &device,
        "counter readback",
        4,
        BufferUsages::MAP_READ | BufferUsages::COPY_DST,
    );
    queue.write_buffer(&counter, 0, &0u32.to_le_bytes());
    let bg = bind_group(&device, &p, &[&counter]);
    let mut totals = Vec::with_capacity(runs);
    let mut encodes = Vec::with_capacity(runs);
    for run in 0..=runs {
        let start = Instant::now();
        let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor { label: None });
        {
            let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor::default());
            pass.set_pipeline(&p);
            for _ in 0..dispatches {
                pass.set_bind_group(0, &bg, &[]);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        let commands = encoder.finish();
        let encoded = start.elapsed();
        queue.submit([commands]);
        let total = start.elapsed();
        wait(&device);
        if run > 0 {
            totals.push(total);
            encodes.push(encoded);
        }
    }
    let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor { label: None });
    encoder.copy_buffer_to_buffer(&counter, 0, &staging, 0, 4);
    queue.submit([encoder.finish()]);
    let mut out = [0u8; 4];
    read_mapped(&device, &staging, &mut out);
    let count = u32::from_le_bytes(out);
    let expected = dispatches * (runs as u32 + 1);
    assert_eq!(count, expected, "counter after {expected} dispatches");
    let best = (0..runs).min_by_key(|&i| totals[i]).unwrap_or(0);
    let per = |t: Duration| t.as_secs_f64() * 1e9 / dispatches as f64;
    EncodeSubmit {
        best_ns: per(totals[best]),
        encode_ns: per(encodes[best]),
    }
}

/// encode+submit ns per dispatch when every dispatch binds its own buffer
/// (a bind group per buffer): what the per-command-buffer list of used
/// buffers costs as it grows. Best of runs.
fn encode_distinct_buffers(dispatches: u32, runs: usize) -> EncodeSubmit {
    let (device, queue) = device();
    let p = pipeline(&device, include_shader!("shaders/gfx1100/bump"), "bump");
    let groups: Vec<BindGroup> = (0..dispatches)
        .map(|_| {
            let b = buffer(&device, "counter", 4, BufferUsages::STORAGE);
            bind_group(&device, &p, &[&b])
        })
        .collect();
    queue.submit([]);
    wait(&device);
    let (mut best, mut best_encode) = (Duration::MAX, Duration::MAX);
    for _ in 0..runs {
        let start = Instant::now();
        let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor { label: None });
        {
            let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor::default());
            pass.set_pipeline(&p);
            for g in &groups {
                pass.set_bind_group(0, g, &[]);
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        let commands = encoder.finish();
        best_encode = best_encode.min(start.elapsed());
        queue.submit([commands]);
        best = best.min(start.elapsed());
        wait(&device);
    }
    let per = |t: Duration| t.as_secs_f64() * 1e9 / f64::from(dispatches);
    EncodeSubmit {
        best_ns: per(best),
        encode_ns: per(best_encode),
    }
}

/// Medians of the empty round trip and of its two host calls.
struct RoundTrip {
    total: Duration,
    /// queue.submit until it returned.
    submit: Duration,
    /// device.poll(wait) until it returned.
    poll: Duration,
}

fn round_trip(samples: usize) -> RoundTrip {
    let (device, queue) = device();
    let p = pipeline(&device, include_shader!("shaders/gfx1100/empty"), "empty");
    let (mut times, mut submits, mut polls) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..samples + 50 {
        let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor { label: None });
        {
            let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor::default());
            pass.set_pipeline(&p);
            pass.dispatch_workgroups(1, 1, 1);
        }
        let commands = encoder.finish();
        let start = Instant::now();
        queue.submit([commands]);
        let submitted = Instant::now();
        wait(&device);
        let done = Instant::now();
        if i >= 50 {
            times.push(done - start);
            submits.push(submitted - start);
            polls.push(done - submitted);
        }
    }
    RoundTrip {
        total: median(&mut times),
        submit: median(&mut submits),
        poll: median(&mut polls),
    }
}

fn expected_word(i: u32, seed: u32) -> u32 {
    i.wrapping_mul(2_654_435_761) ^ seed
}

fn check(bytes: &[u8], seed: u32) {
    for (i, w) in bytes.chunks_exact(4).enumerate() {
        let got = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        assert_eq!(got, expected_word(i as u32, seed), "readback word {i}");
    }
}

struct Readback {
    /// Median map (until the callback ran), copy-out and unmap times, and
    /// of a second copy-out of the same mapped bytes.
    parts: [Duration; 4],
    map: Duration,
    full: Duration,
    memcpy: Duration,
    /// A memcpy of 1 MiB another thread has just written.
    memcpy_fresh: Duration,
    /// The same after the same GPU work and wait as `map` (no mapping),
    /// the bytes written after that work, and before it.
    memcpy_after_fill: Duration,
    memcpy_before_fill: Duration,
    /// Writing the 1 MiB host buffer alone after that work and wait.
    write_after_fill: Duration,
}

fn readback(bytes: u64, samples: usize) -> Readback {
    let (device, queue) = device();
    let words = (bytes / 4) as u32;
    let storage = buffer(
        &device,
        "written by the GPU",
        bytes,
        BufferUsages::STORAGE | BufferUsages::COPY_SRC,
    );
    let staging = buffer(
        &device,
        "staging",
        bytes,
        BufferUsages::MAP_READ | BufferUsages::COPY_DST,
    );
    let params = buffer(
        &device,
        "params",
        16,
        BufferUsages::UNIFORM | BufferUsages::COPY_DST,
    );
    let p = pipeline(
        &device,
        include_shader!("shaders/gfx1100/fill_pattern"),
        "fill",
    );
    let bg = bind_group(&device, &p, &[&params, &storage]);
    let groups = words.div_ceil(256);
    let fill = |seed: u32, copy: bool| {
        queue.write_buffer(&params, 0, bytemuck::cast_slice(&[seed, words, 0, 0]));
        let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor { label: None });
        {
            let mut pass = encoder.begin_compute_pass(&ComputePassDescriptor::default());
            pass.set_pipeline(&p);
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
        }
        if copy {
            encoder.copy_buffer_to_buffer(&storage, 0, &staging, 0, bytes);
        }
        queue.submit([encoder.finish()]);
        wait(&device);
    };
    let mut host = vec![0u8; bytes as usize];
    let mut fresh: Vec<u8> = vec![0u8; bytes as usize];
    let (mut map_times, mut full_times) = (Vec::new(), Vec::new());
    let (mut after_fill, mut before_fill) = (Vec::new(), Vec::new());
    let mut write_after_fill = Vec::new();
    let mut parts: [Vec<Duration>; 4] = Default::default();
    const WARM_UP: usize = 5;
    for i in 0..samples + WARM_UP {
        let seed = 2 * i as u32 + 1;
        fill(seed, true);
        let start = Instant::now();
        let split = read_mapped(&device, &staging, &mut host);
        let map_t = start.elapsed();
        let second = again(&device, &staging, &mut host);
        check(&host, seed);

        fill(seed + 1, false);
        let start = Instant::now();
        let mut encoder = device.create_command_encoder(&CommandEncoderDescriptor { label: None });
        encoder.copy_buffer_to_buffer(&storage, 0, &staging, 0, bytes);
        queue.submit([encoder.finish()]);
        read_mapped(&device, &staging, &mut host);
        let full_t = start.elapsed();
        check(&host, seed + 1);

        // The baseline for map+copy with the caches in the same state: the
        // same GPU work and wait (gfxsim's workers, and whatever else runs
        // on this host, had this thread's core meanwhile), then a memcpy
        // into the same host buffer of 1 MiB another thread wrote just
        // after that work, or (as old as the GPU's results) just before it.
        let mut copy_fresh = |written_first: bool| {
            let write = |fresh: &mut Vec<u8>| {
                std::thread::scope(|s| {
                    s.spawn(|| fresh.fill(i as u8));
                })
            };
            if written_first {
                write(&mut fresh);
            }
            fill(seed, true);
            if !written_first {
                write(&mut fresh);
            }
            let start = Instant::now();
            host.copy_from_slice(std::hint::black_box(&fresh));
            std::hint::black_box(&mut host);
            start.elapsed()
        };
        let after_t = copy_fresh(false);
        let before_t = copy_fresh(true);
        // What of that is the destination: writing it alone after the same.
        fill(seed, true);
        let start = Instant::now();
        host.fill(i as u8);
        std::hint::black_box(&mut host);
        let write_t = start.elapsed();
        if i >= WARM_UP {
            map_times.push(map_t);
            full_times.push(full_t);
            after_fill.push(after_t);
            before_fill.push(before_t);
            write_after_fill.push(write_t);
            for (all, t) in parts.iter_mut().zip(split.into_iter().chain([second])) {
                all.push(t);
            }
        }
    }
    let src: Vec<u8> = (0..bytes).map(|i| i as u8).collect();
    let mut memcpy_times = Vec::new();
    for i in 0..samples + WARM_UP {
        let start = Instant::now();
        host.copy_from_slice(std::hint::black_box(&src));
        std::hint::black_box(&mut host);
        let t = start.elapsed();
        if i >= WARM_UP {
            memcpy_times.push(t);
        }
    }
    // The honest baseline for copying out what a GPU (here gfxsim's worker
    // threads) just wrote: a memcpy of 1 MiB that another thread has just
    // written, so its lines sit modified in another core's caches rather
    // than hot in this one's.
    let mut cross_times = Vec::new();
    for i in 0..samples + WARM_UP {
        std::thread::scope(|s| {
            s.spawn(|| fresh.fill(i as u8));
        });
        let start = Instant::now();
        host.copy_from_slice(std::hint::black_box(&fresh));
        std::hint::black_box(&mut host);
        let t = start.elapsed();
        if i >= WARM_UP {
            cross_times.push(t);
        }
    }
    Readback {
        parts: parts.map(|mut p| median(&mut p)),
        map: median(&mut map_times),
        full: median(&mut full_times),
        memcpy: median(&mut memcpy_times),
        memcpy_fresh: median(&mut cross_times),
        memcpy_after_fill: median(&mut after_fill),
        memcpy_before_fill: median(&mut before_fill),
        write_after_fill: median(&mut write_after_fill),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    // `--only NAME` runs one aqueduct part (encode-submit, traced, distinct,
    // round-trip or readback) and nothing else, for profiling it.
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    // `--runs N` sets the encode+submit repetitions (more samples to profile).
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(if quick { 2 } else { 5 });
    let dispatches = 10_000u32;
    // `--samples N` sets the round-trip samples.
    let rt_samples = args
        .iter()
        .position(|a| a == "--samples")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(if quick { 100 } else { 500 });
    // `--bytes N` sets the readback size (1 MiB; the printed label stays
    // "1 MiB"), e.g. to find where the SDMA engine beats a blit kernel.
    let rb_bytes = args
        .iter()
        .position(|a| a == "--bytes")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(1u64 << 20);
    let rb_samples = if quick { 20 } else { 200 };
    println!(
        "dispatch benchmarks: aqueduct on gfxsim vs wgpu 30 on lavapipe ({} cores here)",
        std::thread::available_parallelism().map_or(1, |c| c.get())
    );

    let distinct = 4096;
    if let Some(part) = only.as_deref() {
        // One aqueduct part alone (no peer), e.g. under `perf record`.
        match part {
            "encode-submit" => {
                print_encode_submit(dispatches, "", &encode_submit(dispatches, runs))
            }
            "traced" => {
                if let Some(t) = encode_submit_traced(dispatches, runs) {
                    print_traced(dispatches, &t, None);
                }
            }
            "distinct" => print_encode_submit(
                distinct,
                " each binding its own buffer",
                &encode_distinct_buffers(distinct, runs),
            ),
            "round-trip" => print_round_trip(&round_trip(rt_samples)),
            "readback" => print_readback(&readback(rb_bytes, rb_samples)),
            other => eprintln!(
                "--only {other}: expected encode-submit, traced, distinct, round-trip or readback"
            ),
        }
        return;
    }
    let es = encode_submit(dispatches, runs);
    print_encode_submit(dispatches, "", &es);
    if let Some(t) = encode_submit_traced(dispatches, runs) {
        print_traced(dispatches, &t, Some(&es));
    }
    let ed = encode_distinct_buffers(distinct, runs);
    print_encode_submit(distinct, " each binding its own buffer", &ed);
    let rt = round_trip(rt_samples);
    print_round_trip(&rt);
    let rb = readback(rb_bytes, rb_samples);
    print_readback(&rb);

    let (d_arg, r_arg) = (dispatches.to_string(), runs.to_string());
    match peer::run("encode-submit", &["--dispatches", &d_arg, "--runs", &r_arg]).and_then(|v| {
        Ok((
            peer::number(&v, "ns_per_dispatch")?,
            peer::number(&v, "encode_ns_per_dispatch")?,
            peer::adapter(&v),
        ))
    }) {
        Ok((ns, enc, adapter)) => println!(
            "encode+submit, {dispatches} dispatches: wgpu     {ns:8.1} ns/dispatch (encode {enc:.1}) ({adapter})\n  aqueduct/wgpu {:.3}",
            es.best_ns / ns
        ),
        Err(why) => println!("{}", peer::unavailable(&why)),
    }
    let (d_arg, r_arg) = (distinct.to_string(), runs.to_string());
    match peer::run("distinct", &["--dispatches", &d_arg, "--runs", &r_arg]).and_then(|v| {
        Ok((
            peer::number(&v, "ns_per_dispatch")?,
            peer::number(&v, "encode_ns_per_dispatch")?,
        ))
    }) {
        Ok((ns, enc)) => println!(
            "encode+submit, {distinct} dispatches each binding its own buffer: wgpu {ns:8.1} ns/dispatch (encode {enc:.1})\n  aqueduct/wgpu {:.3}",
            ed.best_ns / ns
        ),
        Err(why) => println!("{}", peer::unavailable(&why)),
    }
    let s_arg = rt_samples.to_string();
    match peer::run("round-trip", &["--samples", &s_arg])
        .and_then(|v| peer::number(&v, "median_us"))
    {
        Ok(us) => println!(
            "empty round trip (median):   wgpu     {us:8.2} µs\n  aqueduct/wgpu {:.3}",
            micros(rt.total) / us
        ),
        Err(why) => println!("{}", peer::unavailable(&why)),
    }
    let (b_arg, s_arg) = (rb_bytes.to_string(), rb_samples.to_string());
    match peer::run("readback", &["--bytes", &b_arg, "--samples", &s_arg]).and_then(|v| {
        Ok((
            peer::number(&v, "median_us")?,
            peer::number(&v, "full_median_us")?,
            peer::number(&v, "ratio_to_memcpy")?,
            peer::number(&v, "full_ratio_to_memcpy")?,
        ))
    }) {
        Ok((map_us, full_us, ratio, full_ratio)) => println!(
            "1 MiB readback (median):     wgpu     {map_us:8.2} µs map+copy, {full_us:.2} µs with the GPU copy; ratio to its memcpy {ratio:.2} (full {full_ratio:.2})\n  aqueduct/wgpu {:.3} (full {:.3})",
            micros(rb.map) / map_us,
            micros(rb.full) / full_us
        ),
        Err(why) => println!("{}", peer::unavailable(&why)),
    }
}

fn print_encode_submit(dispatches: u32, what: &str, es: &EncodeSubmit) {
    println!(
        "encode+submit, {dispatches} dispatches{what}: aqueduct {:8.1} ns/dispatch (encode {:.1})",
        es.best_ns, es.encode_ns
    );
}

/// [`encode_submit`] while a trace session writes every dispatch to a
/// temporary file (removed after); None when no session could start (one
/// is already running, e.g. from `AQUEDUCT_TRACE`).
fn encode_submit_traced(dispatches: u32, runs: usize) -> Option<EncodeSubmit> {
    let path = std::env::temp_dir().join(format!(
        "aqueduct-dispatch-bench-{}.trace.json",
        std::process::id()
    ));
    let session = match aqueduct::trace::start(&path) {
        Ok(session) => session,
        Err(e) => {
            println!("encode+submit traced: not measured ({e})");
            return None;
        }
    };
    let es = encode_submit(dispatches, runs);
    let stopped = session.stop();
    let _ = std::fs::remove_file(&path);
    if let Err(e) = stopped {
        println!("encode+submit traced: the trace failed ({e})");
        return None;
    }
    Some(es)
}

fn print_traced(dispatches: u32, traced: &EncodeSubmit, untraced: Option<&EncodeSubmit>) {
    println!(
        "encode+submit, {dispatches} dispatches, traced: aqueduct {:8.1} ns/dispatch (encode {:.1})",
        traced.best_ns, traced.encode_ns
    );
    if let Some(u) = untraced {
        println!(
            "  traced/untraced {:.3} (goal: at most 1.05)",
            traced.best_ns / u.best_ns
        );
    }
}

fn print_round_trip(rt: &RoundTrip) {
    println!(
        "empty round trip (median):   aqueduct {:8.2} µs (submit {:.2} µs, poll(wait) {:.2} µs)",
        micros(rt.total),
        micros(rt.submit),
        micros(rt.poll)
    );
}

fn print_readback(rb: &Readback) {
    println!(
        "1 MiB readback (median):     aqueduct {:8.2} µs map+copy, {:.2} µs with the GPU copy; memcpy {:.2} µs; ratio to memcpy {:.2} (full {:.2})",
        micros(rb.map),
        micros(rb.full),
        micros(rb.memcpy),
        rb.map.as_secs_f64() / rb.memcpy.as_secs_f64(),
        rb.full.as_secs_f64() / rb.memcpy.as_secs_f64()
    );
    println!(
        "  map+copy parts (medians):  map until the callback {:.2} µs, copy out {:.2} µs, unmap {:.2} µs",
        micros(rb.parts[0]),
        micros(rb.parts[1]),
        micros(rb.parts[2])
    );
    println!(
        "  copy out of the same mapped MiB a second time: {:.2} µs (first / second {:.2})",
        micros(rb.parts[3]),
        rb.parts[1].as_secs_f64() / rb.parts[3].as_secs_f64()
    );
    println!(
        "  memcpy of 1 MiB another thread just wrote: {:.2} µs; map+copy / that {:.2}; copy out / that {:.2}",
        micros(rb.memcpy_fresh),
        rb.map.as_secs_f64() / rb.memcpy_fresh.as_secs_f64(),
        rb.parts[1].as_secs_f64() / rb.memcpy_fresh.as_secs_f64()
    );
    let after = rb.memcpy_after_fill.as_secs_f64();
    let before = rb.memcpy_before_fill.as_secs_f64();
    println!(
        "  that memcpy after the same GPU work and wait, no mapping: {:.2} µs (bytes written after the work), {:.2} µs (before it); writing the destination alone {:.2} µs",
        micros(rb.memcpy_after_fill),
        micros(rb.memcpy_before_fill),
        micros(rb.write_after_fill),
    );
    println!(
        "    map+copy / those {:.2} and {:.2}; copy out / those {:.2} and {:.2}",
        rb.map.as_secs_f64() / after,
        rb.map.as_secs_f64() / before,
        rb.parts[1].as_secs_f64() / after,
        rb.parts[1].as_secs_f64() / before
    );
}
