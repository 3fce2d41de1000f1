//! Latency of a host callback after a trivial kernel, on gfxsim.
//!
//! Each iteration submits the `empty` kernel (one workgroup of 64) with a
//! completion signal and arranges for a host callback to run once that
//! signal reaches 0; the callback stamps the time. Latency = stamp - time
//! just before the kernel was submitted. Ways measured in the same run:
//! - `agent`: the callback is an agent-dispatch packet on a CPU-agent soft
//!   queue behind a barrier-AND on the kernel's signal (no host thread
//!   polls: the processor sleeps on the signal's event);
//! - `peer-blocked`: what a polling implementation does: a host thread
//!   waits on the kernel's signal with the runtime's blocking wait (spin
//!   5 us, then sleep on the event), then runs the callback;
//! - `peer-active`: the same thread spinning (WaitHint::Active);
//! - `baseline`: the submitting thread itself waits for the kernel (no
//!   callback at all): the kernel's own round trip.
//!
//! Prints median / p90 per way and the agent/peer ratios.
//!
//! Run: `cargo bench -p aqueduct-hsa --bench host_callback`
//! (AQ_ITERS=N to change the iteration count, default 300).

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aqueduct_gfxsim::{SimConfig, SimDevice};
use aqueduct_hsa::agent_queue::{AgentQueue, HostFunctionRegistry};
use aqueduct_hsa::code_object::{DispatchShape, KernargBuilder};
use aqueduct_hsa::{Runtime, RuntimeOptions, Signal, WaitCondition, WaitHint};

const TIMEOUT: Duration = Duration::from_secs(30);

fn stats(name: &str, mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    let median = v[v.len() / 2];
    let p90 = v[v.len() * 9 / 10];
    println!(
        "{name:>13}: median {:>8.1} us   p90 {:>8.1} us   ({} iterations)",
        median.as_secs_f64() * 1e6,
        p90.as_secs_f64() * 1e6,
        v.len()
    );
    median
}

fn main() {
    let iters: usize = std::env::var("AQ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let sim = SimDevice::new(SimConfig {
        threads: 2,
        ..SimConfig::default()
    })
    .expect("SimDevice::new");
    let rt = Runtime::with_options(
        sim.clone(),
        RuntimeOptions {
            visible_devices: None,
            aperture_size: 4 << 30,
        },
    )
    .expect("runtime");
    let gpu = rt.gpu_agent(0).expect("gpu").clone();
    let cpu = rt.cpu_agents().next().expect("cpu agent").clone();
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../kernels/gfx1100/empty.co"
    ))
    .expect("kernels/gfx1100/empty.co");
    let exe = rt.load_executable(&gpu, &bytes).expect("load empty.co");
    let kernel = exe.kernel("empty").expect("kernel empty");
    let shape = DispatchShape::new([64, 1, 1], [64, 1, 1], 1);
    let kernarg_bytes = KernargBuilder::new(&kernel.info)
        .finish(&shape)
        .expect("kernargs");
    let mut kernarg = rt
        .kernargs(&gpu)
        .expect("kernarg region")
        .allocate(kernarg_bytes.len().max(1) as u64)
        .expect("kernarg block");
    kernarg.as_mut_slice()[..kernarg_bytes.len()].copy_from_slice(&kernarg_bytes);
    let dispatch = kernel.dispatch(kernarg.gpu_va(), [64, 1, 1], [64, 1, 1]);
    let gpu_q = rt.create_queue(&gpu, 256).expect("gpu queue");
    let agent_q =
        AgentQueue::new(&rt, &cpu, 256, HostFunctionRegistry::new()).expect("agent queue");

    let submit_kernel = |done: &Signal| {
        let mut d = dispatch;
        d.completion_signal = done.handle();
        gpu_q
            .submit_dispatch(&d.to_packet().expect("packet"))
            .expect("submit");
    };
    let wait = |s: &Signal| {
        s.wait(WaitCondition::Eq, 0, Some(TIMEOUT), WaitHint::Blocked)
            .expect("wait");
    };

    // Warm up the code cache and both queues.
    for _ in 0..20 {
        let k = rt.create_signal(1).unwrap();
        submit_kernel(&k);
        let cb = rt.create_signal(1).unwrap();
        agent_q.submit_callback(&[&k], Some(&cb), || {}).unwrap();
        wait(&cb);
    }

    let mut baseline = Vec::with_capacity(iters);
    let mut agent = Vec::with_capacity(iters);
    let mut peer_blocked = Vec::with_capacity(iters);
    let mut peer_active = Vec::with_capacity(iters);

    // A polling implementation's helper thread: waits on each kernel's
    // signal, then runs the callback (here: stamps the time).
    type Job = (Signal, WaitHint, mpsc::Sender<Instant>);
    let (job_tx, job_rx) = mpsc::channel::<Job>();
    let waiter = std::thread::spawn(move || {
        for (signal, hint, stamp) in job_rx {
            signal
                .wait(WaitCondition::Eq, 0, Some(TIMEOUT), hint)
                .expect("peer wait");
            let _ = stamp.send(Instant::now());
        }
    });

    for _ in 0..iters {
        // baseline
        let k = rt.create_signal(1).unwrap();
        let t0 = Instant::now();
        submit_kernel(&k);
        wait(&k);
        baseline.push(t0.elapsed());

        // agent dispatch
        let k = rt.create_signal(1).unwrap();
        let cb_done = rt.create_signal(1).unwrap();
        let stamp: Arc<Mutex<Option<Instant>>> = Arc::default();
        let stamp_in = stamp.clone();
        let t0 = Instant::now();
        submit_kernel(&k);
        agent_q
            .submit_callback(&[&k], Some(&cb_done), move || {
                *stamp_in.lock().unwrap() = Some(Instant::now());
            })
            .unwrap();
        wait(&cb_done);
        let at = stamp.lock().unwrap().expect("callback ran");
        agent.push(at - t0);

        // peers
        for (hint, out) in [
            (WaitHint::Blocked, &mut peer_blocked),
            (WaitHint::Active, &mut peer_active),
        ] {
            let k = rt.create_signal(1).unwrap();
            let (tx, rx) = mpsc::channel();
            job_tx.send((k.clone(), hint, tx)).unwrap();
            let t0 = Instant::now();
            submit_kernel(&k);
            let at = rx.recv_timeout(TIMEOUT).expect("peer stamp");
            out.push(at - t0);
        }
    }
    drop(job_tx);
    waiter.join().unwrap();

    println!("host callback after a trivial kernel (gfxsim gfx1100, `empty`, 64 work-items)");
    let b = stats("baseline", baseline);
    let a = stats("agent", agent);
    let pb = stats("peer-blocked", peer_blocked);
    let pa = stats("peer-active", peer_active);
    println!(
        "agent - baseline: {:.1} us (callback latency after the kernel's own round trip)",
        (a.as_secs_f64() - b.as_secs_f64()) * 1e6
    );
    println!(
        "ratio agent/peer-blocked: {:.2}   agent/peer-active: {:.2}",
        a.as_secs_f64() / pb.as_secs_f64(),
        a.as_secs_f64() / pa.as_secs_f64()
    );
}
