//! End to end through aqueduct-hsa on gfxsim: the AQL ordering rules.
//!
//! Barrier-AND/OR packets hold back what follows them until the host (or
//! another queue's completion) sets their signals; the barrier bit makes a
//! dispatch wait for everything before it; packets without it may run
//! concurrently and all complete; several queues (and several producers on
//! one queue) work from host threads at once; and the ring wraps many times.
//! "Not started" is checked as: output still holds its sentinel, the
//! completion signal still holds its initial value, and the queue's read
//! index has not moved past the barrier, after the device had ample time.

use std::time::Duration;

use aqueduct_hsa::{MemoryOrder, PacketFence, Queue, Signal};
use aqueduct_test_harness::hsa_sim::{
    Arg, Gpu, Launch, Program, Rng, assert_same, read_f32, read_u32, wait_zero,
};

const SENTINEL: u32 = 0xdead_beef;
/// How long a blocked packet is watched before its dependency is released.
const HOLD: Duration = Duration::from_millis(80);

/// A vector_copy of `words` into a fresh sentinel-filled buffer, prepared
/// but not submitted.
struct Copy {
    src_words: Vec<u32>,
    _src: aqueduct_hsa::Allocation,
    dst: aqueduct_hsa::Allocation,
    launch: Launch,
}

impl Copy {
    fn new(gpu: &Gpu, program: &Program, words: Vec<u32>, wg: u16) -> Copy {
        let n = words.len();
        let src = gpu.upload_u32(&words);
        let dst = gpu.filled_u32(n, SENTINEL);
        let launch = gpu.launch(
            &program.kernel,
            &[
                Arg::Ptr(src.gpu_va()),
                Arg::Ptr(dst.gpu_va()),
                Arg::U32(n as u32),
            ],
            [n as u32, 1, 1],
            [wg, 1, 1],
        );
        Copy {
            src_words: words,
            _src: src,
            dst,
            launch,
        }
    }

    fn submit(&self, queue: &Queue, done: &Signal, fence: PacketFence) {
        let mut d = self.launch.dispatch;
        d.completion_signal = done.handle();
        d.fence = fence;
        queue.submit_dispatch(&d.to_packet().unwrap()).unwrap();
    }

    fn untouched(&self) -> bool {
        read_u32(&self.dst, self.src_words.len())
            .iter()
            .all(|&v| v == SENTINEL)
    }

    fn check(&self, what: &str) {
        assert_same(
            &read_u32(&self.dst, self.src_words.len()),
            &self.src_words,
            what,
        );
    }
}

/// A dispatch behind a barrier-AND on two host signals starts only after
/// both are 0; the barrier's own completion signal fires then too.
#[test]
fn barrier_and_holds_dispatches_until_every_signal_is_set() {
    let gpu = Gpu::new();
    let program = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let copy = Copy::new(&gpu, &program, Rng::new(10).u32s(1000), 64);
    let gate_a = gpu.signal(1);
    let gate_b = gpu.signal(3);
    let barrier_done = gpu.signal(1);
    let done = gpu.signal(1);

    queue
        .submit_barrier_and(&[&gate_a, &gate_b], Some(&barrier_done))
        .unwrap();
    copy.submit(&queue, &done, PacketFence::SYSTEM_ORDERED);
    std::thread::sleep(HOLD);
    assert!(copy.untouched(), "the dispatch ran before its barrier");
    assert_eq!(done.load(MemoryOrder::Acquire), 1);
    assert_eq!(barrier_done.load(MemoryOrder::Acquire), 1);
    assert_eq!(queue.read_index(), 0);

    // One of two: still held.
    gate_a.store(0, MemoryOrder::Release);
    std::thread::sleep(HOLD);
    assert!(
        copy.untouched(),
        "a barrier-AND released with one of two signals set"
    );
    assert_eq!(done.load(MemoryOrder::Acquire), 1);
    assert_eq!(queue.read_index(), 0);

    // Counting the other down (sub issues SET_EVENT each time) releases it
    // only at 0.
    gate_b.sub(1, MemoryOrder::AcqRel);
    gate_b.sub(1, MemoryOrder::AcqRel);
    std::thread::sleep(HOLD / 2);
    assert!(copy.untouched(), "released at gate value 1");
    gate_b.sub(1, MemoryOrder::AcqRel);
    wait_zero(&done).unwrap();
    assert_eq!(barrier_done.load(MemoryOrder::Acquire), 0);
    assert_eq!(queue.read_index(), 2);
    copy.check("after the barrier-AND");
}

/// A barrier-OR on three signals releases as soon as one of them is 0.
#[test]
fn barrier_or_releases_on_any_one_signal() {
    let gpu = Gpu::new();
    let program = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    let copy = Copy::new(&gpu, &program, Rng::new(11).u32s(333), 32);
    let gates = [gpu.signal(1), gpu.signal(1), gpu.signal(1)];
    let done = gpu.signal(1);
    queue
        .submit_barrier_or(&[&gates[0], &gates[1], &gates[2]], None)
        .unwrap();
    copy.submit(&queue, &done, PacketFence::SYSTEM_ORDERED);
    std::thread::sleep(HOLD);
    assert!(copy.untouched(), "the dispatch ran before its barrier-OR");
    assert_eq!(done.load(MemoryOrder::Acquire), 1);
    assert_eq!(queue.read_index(), 0);

    gates[1].sub(1, MemoryOrder::AcqRel);
    wait_zero(&done).unwrap();
    copy.check("after the barrier-OR");
    assert_eq!(gates[0].load(MemoryOrder::Relaxed), 1);
    assert_eq!(gates[2].load(MemoryOrder::Relaxed), 1);
}

/// A barrier-AND on another queue's completion signal: queue B's copy reads
/// what queue A's copy writes, and A itself is held by a host gate, so B
/// can only be right if the device waits on A's signal.
#[test]
fn barrier_and_on_a_signal_completed_by_another_queue() {
    let gpu = Gpu::new();
    let program = gpu.load("vector_copy");
    let queue_a = gpu.queue(64);
    let queue_b = gpu.queue(64);
    const N: usize = 2048;
    let words = Rng::new(12).u32s(N);
    let first = Copy::new(&gpu, &program, words.clone(), 128);
    // B copies A's destination onward.
    let second_dst = gpu.filled_u32(N, SENTINEL);
    let second = gpu.launch(
        &program.kernel,
        &[
            Arg::Ptr(first.dst.gpu_va()),
            Arg::Ptr(second_dst.gpu_va()),
            Arg::U32(N as u32),
        ],
        [N as u32, 1, 1],
        [256, 1, 1],
    );
    let gate = gpu.signal(1);
    let a_done = gpu.signal(1);
    let b_done = gpu.signal(1);

    queue_b.submit_barrier_and(&[&a_done], None).unwrap();
    let mut d = second.dispatch;
    d.completion_signal = b_done.handle();
    queue_b.submit_dispatch(&d.to_packet().unwrap()).unwrap();
    queue_a.submit_barrier_and(&[&gate], None).unwrap();
    first.submit(&queue_a, &a_done, PacketFence::SYSTEM_ORDERED);

    std::thread::sleep(HOLD);
    assert_eq!(b_done.load(MemoryOrder::Acquire), 1);
    assert!(read_u32(&second_dst, N).iter().all(|&v| v == SENTINEL));
    gate.store(0, MemoryOrder::Release);
    wait_zero(&b_done).unwrap();
    assert_eq!(a_done.load(MemoryOrder::Acquire), 0);
    assert_same(&read_u32(&second_dst, N), &words, "queue B's copy");
}

/// The barrier bit: a chain of copies buf0 -> buf1 -> ... -> buf12, each
/// with the barrier bit, behind a long compute kernel that produces buf0.
/// Only the last packet has a completion signal; the chain ends with the
/// compute kernel's output only if every copy waited for the one before.
#[test]
fn the_barrier_bit_orders_a_dependent_chain() {
    let gpu = Gpu::new();
    let compute = gpu.load("sqrt_exp_loop");
    let copy = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    const N: usize = 4096;
    const ITERS: u32 = 64;
    const LINKS: usize = 12;
    let mut rng = Rng::new(13);
    let input: Vec<f32> = (0..N).map(|_| rng.f32(-20.0, 20.0)).collect();
    let inb = gpu.upload_f32(&input);
    let bufs: Vec<_> = (0..=LINKS).map(|_| gpu.filled_u32(N, SENTINEL)).collect();
    let mut launches = vec![gpu.launch(
        &compute.kernel,
        &[
            Arg::Ptr(inb.gpu_va()),
            Arg::Ptr(bufs[0].gpu_va()),
            Arg::U32(ITERS),
            Arg::U32(N as u32),
        ],
        [N as u32, 1, 1],
        [64, 1, 1],
    )];
    for link in 0..LINKS {
        launches.push(gpu.launch(
            &copy.kernel,
            &[
                Arg::Ptr(bufs[link].gpu_va()),
                Arg::Ptr(bufs[link + 1].gpu_va()),
                Arg::U32(N as u32),
            ],
            [N as u32, 1, 1],
            [1024, 1, 1],
        ));
    }
    let done = gpu.signal(1);
    let mut reservation = queue.reserve(launches.len() as u32).unwrap();
    for (i, l) in launches.iter().enumerate() {
        let mut d = l.dispatch;
        d.fence = PacketFence {
            barrier: true,
            ..PacketFence::AGENT_UNORDERED
        };
        if i == LINKS {
            d.fence = PacketFence::SYSTEM_ORDERED;
            d.completion_signal = done.handle();
        }
        reservation
            .write(i as u32, &d.to_packet().unwrap())
            .unwrap();
    }
    reservation.commit();
    wait_zero(&done).unwrap();

    let produced = read_f32(&bufs[0], N);
    assert!(
        produced.iter().all(|v| v.is_finite() && *v > 0.0),
        "the compute kernel's output"
    );
    let last = read_u32(&bufs[LINKS], N);
    assert_same(
        &last,
        &read_u32(&bufs[0], N),
        "the end of the chain vs the compute kernel's output",
    );
    assert_eq!(queue.read_index(), (LINKS + 1) as u64);
}

/// 64 dispatches without the barrier bit, in flight together on one queue,
/// all decrementing one completion signal: every copy lands, and the
/// device ran exactly 64 dispatches. (gfxsim's command processor launches
/// packets without the barrier bit while earlier ones run; it exposes no
/// overlap counter, so only the outcome is checked.)
#[test]
fn independent_dispatches_in_flight_together_all_complete() {
    let gpu = Gpu::new();
    let program = gpu.load("vector_copy");
    let queue = gpu.queue(128);
    let mut rng = Rng::new(14);
    let copies: Vec<Copy> = (0..64)
        .map(|i| {
            Copy::new(
                &gpu,
                &program,
                rng.u32s(100 + i * 13),
                [32, 64, 33, 256][i % 4],
            )
        })
        .collect();
    let done = gpu.signal(64);
    let gate = gpu.signal(1);
    let before = gpu.sim.stats();
    // Hold them all behind one barrier so they are queued before any runs.
    queue.submit_barrier_and(&[&gate], None).unwrap();
    let unordered = PacketFence {
        barrier: false,
        ..PacketFence::SYSTEM_ORDERED
    };
    for c in &copies {
        c.submit(&queue, &done, unordered);
    }
    assert_eq!(queue.write_index(), 65);
    gate.store(0, MemoryOrder::Release);
    wait_zero(&done).unwrap();
    for (i, c) in copies.iter().enumerate() {
        c.check(&format!("copy {i}"));
    }
    assert_eq!(gpu.sim.stats().dispatches - before.dispatches, 64);
    assert_eq!(queue.read_index(), 65);
}

/// Four host threads, each with its own queue on the one agent, each
/// running a series of dependent saxpy dispatches (y = 2*x + y) and checking
/// the result after every one. The queues outlive all threads (see the next
/// test for what happens when one is destroyed during another's wait).
#[test]
fn several_queues_driven_from_several_threads() {
    let gpu = Gpu::new();
    let program = gpu.load("saxpy");
    let queues: Vec<Queue> = (0..4).map(|_| gpu.queue(64)).collect();
    std::thread::scope(|s| {
        for (t, queue) in queues.iter().enumerate() {
            let (gpu, program) = (&gpu, &program);
            s.spawn(move || saxpy_rounds(gpu, program, queue, t as u32));
        }
    });
}

fn saxpy_rounds(gpu: &Gpu, program: &Program, queue: &Queue, t: u32) {
    let n = 500 + 77 * t;
    let x: Vec<f32> = (0..n).map(|i| (i % 17) as f32).collect();
    let mut y: Vec<f32> = (0..n).map(|i| (i % 5) as f32 + t as f32).collect();
    let xb = gpu.upload_f32(&x);
    let yb = gpu.upload_f32(&y);
    let launch = gpu.launch(
        &program.kernel,
        &[
            Arg::F32(2.0),
            Arg::Ptr(xb.gpu_va()),
            Arg::Ptr(yb.gpu_va()),
            Arg::U32(n),
        ],
        [n, 1, 1],
        [64, 1, 1],
    );
    for round in 0..8 {
        gpu.run_on(queue, &launch)
            .unwrap_or_else(|e| panic!("thread {t} round {round}: {e}"));
        for (yi, xi) in y.iter_mut().zip(&x) {
            *yi = 2.0f32.mul_add(*xi, *yi);
        }
        // Small integers times powers of two: exact in f32.
        assert_same(
            &read_f32(&yb, n as usize),
            &y,
            &format!("thread {t} round {round}"),
        );
    }
}

/// Queues created and destroyed on one thread while another waits on a
/// signal: the wait must end the way it would alone (here: Timeout, since
/// nothing completes the signal), not fail because a queue's error event
/// went away under it.
#[test]
fn a_wait_survives_other_queues_being_destroyed() {
    let gpu = Gpu::new();
    let lonely = gpu.signal(1);
    for round in 0..3 {
        // The queue exists when the wait starts and goes away during it.
        let queue = gpu.queue(64);
        std::thread::scope(|s| {
            let waiter = s.spawn(|| {
                lonely.wait(
                    aqueduct_hsa::WaitCondition::Eq,
                    0,
                    Some(Duration::from_millis(250)),
                    aqueduct_hsa::WaitHint::Blocked,
                )
            });
            std::thread::sleep(Duration::from_millis(40));
            drop(queue);
            let result = waiter.join().unwrap();
            assert!(
                matches!(result, Err(aqueduct_hsa::HsaError::Timeout)),
                "round {round}: wait during a queue's teardown: {result:?}"
            );
        });
    }
    // And the realistic case: threads with their own queues finishing at
    // different times while the others still wait for dispatches.
    let program = gpu.load("saxpy");
    std::thread::scope(|s| {
        for t in 0..3u32 {
            let (gpu, program) = (&gpu, &program);
            s.spawn(move || {
                let queue = gpu.queue(64);
                saxpy_rounds(gpu, program, &queue, t * 3);
            });
        }
    });
}

/// Several host threads submitting to ONE queue at once (the ring is
/// multi-producer): every dispatch runs exactly once.
#[test]
fn several_threads_share_one_queue() {
    let gpu = Gpu::new();
    let program = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    const THREADS: usize = 4;
    const PER_THREAD: usize = 40;
    let done = gpu.signal((THREADS * PER_THREAD) as i64);
    let mut rng = Rng::new(15);
    let copies: Vec<Vec<Copy>> = (0..THREADS)
        .map(|_| {
            (0..PER_THREAD)
                .map(|_| Copy::new(&gpu, &program, rng.u32s(96), 32))
                .collect()
        })
        .collect();
    std::thread::scope(|s| {
        for mine in &copies {
            let (queue, done) = (&queue, &done);
            s.spawn(move || {
                for c in mine {
                    c.submit(queue, done, PacketFence::SYSTEM_ORDERED);
                }
            });
        }
    });
    wait_zero(&done).unwrap();
    for (t, mine) in copies.iter().enumerate() {
        for (i, c) in mine.iter().enumerate() {
            c.check(&format!("thread {t} copy {i}"));
        }
    }
    assert_eq!(queue.read_index(), (THREADS * PER_THREAD) as u64);
}

/// 500 dispatches (and a barrier every 50) through a 64-packet ring: the
/// producer waits for free slots and the ring wraps ~8 times.
#[test]
fn the_ring_wraps_many_times() {
    let gpu = Gpu::new();
    let program = gpu.load("vector_copy");
    let queue = gpu.queue(64);
    assert_eq!(queue.size(), 64);
    const DISPATCHES: usize = 500;
    const CHUNK: usize = 64;
    let words = Rng::new(16).u32s(DISPATCHES * CHUNK);
    let src = gpu.upload_u32(&words);
    let dst = gpu.filled_u32(DISPATCHES * CHUNK, SENTINEL);
    let done = gpu.signal(DISPATCHES as i64);
    let barriers_done = gpu.signal((DISPATCHES / 50) as i64);
    // Every kernarg block stays alive until the end (a freed block could be
    // reused and overwritten before its dispatch ran).
    let launches: Vec<Launch> = (0..DISPATCHES)
        .map(|i| {
            let offset = (i * CHUNK * 4) as u64;
            gpu.launch(
                &program.kernel,
                &[
                    Arg::Ptr(src.gpu_va() + offset),
                    Arg::Ptr(dst.gpu_va() + offset),
                    Arg::U32(CHUNK as u32),
                ],
                [CHUNK as u32, 1, 1],
                [32, 1, 1],
            )
        })
        .collect();
    let mut packets = 0u64;
    for (i, launch) in launches.iter().enumerate() {
        let mut d = launch.dispatch;
        d.completion_signal = done.handle();
        d.fence.barrier = i % 2 == 0;
        // Blocks while the ring is full, until the device frees slots.
        queue.submit_dispatch(&d.to_packet().unwrap()).unwrap();
        packets += 1;
        if i % 50 == 49 {
            queue.submit_barrier_and(&[], Some(&barriers_done)).unwrap();
            packets += 1;
        }
    }
    wait_zero(&done).unwrap();
    wait_zero(&barriers_done).unwrap();
    assert_same(
        &read_u32(&dst, DISPATCHES * CHUNK),
        &words,
        "wrapped copies",
    );
    assert_eq!(queue.write_index(), packets);
    assert_eq!(queue.read_index(), packets);
    assert!(packets > 7 * 64);
}
