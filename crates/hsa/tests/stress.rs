//! Stress through aqueduct-hsa on gfxsim: many threads on one small queue,
//! and one signal waited from many threads.
//!
//! - `eight_threads_share_a_64_packet_queue`: 8 threads submit 1250 packets
//!   each (10 000 in all) to one 64-packet queue (the smallest the runtime
//!   makes): `stamp` dispatches of 1..=64 work-items, each with its own
//!   output slot and counter word, and every 16th packet a barrier-AND. A
//!   barrier on a host signal holds the queue until the threads are blocked
//!   on the full ring (so back-pressure is exercised every run, not by
//!   luck). Each thread keeps 16 kernarg blocks in flight and reuses one only
//!   after its own completion signal says the packet that used it is done.
//!   Every counter must equal its dispatch's work-item count (0: a lost
//!   packet, twice: a packet run twice) and every output word its host value.
//! - `one_signal_waited_from_many_threads`: 8 threads wait (blocked and
//!   active hints) on one signal that a dispatch completes, 200 rounds,
//!   re-armed each round; every waiter must see it.
//! - `four_queues_chained_by_barrier_packets`: 4 threads, each on its own
//!   queue, 256 rounds: queue 0 stamps a slot, queue k > 0 waits (barrier-AND
//!   on queue k-1's completion signal of the round) and copies the slot
//!   queue k-1 wrote into its own; every copy must hold queue 0's stamp, so
//!   a barrier released early or a lost wake-up shows (zeros, or a hang).
//!
//! Each test runs under a deadline thread that fails it on a hang.
//! Soak mode: `AQUEDUCT_SOAK=N` multiplies the packet and round counts by N
//! (`AQUEDUCT_SOAK=20 cargo test --release -p aqueduct-hsa --test stress`).
//! CI size: about 1 s on 2 cores (soak 10: about 10 s).

use std::time::{Duration, Instant};

use aqueduct_hsa::code_object::{ArgRef, DispatchShape, KernargBuilder};
use aqueduct_hsa::{Kernel, MemoryOrder, SubAllocation, WaitCondition, WaitHint};
use aqueduct_test_harness::hsa_sim::{Arg, Gpu, Program, TIMEOUT, read_u32};
use aqueduct_test_support::thread::bounded;

const THREADS: usize = 8;
/// Kernarg blocks (so packets) each thread keeps in flight.
const IN_FLIGHT: usize = 16;
/// Output words reserved per submission (its dispatch writes 1..=64).
const SLOT_WORDS: usize = 64;

/// `AQUEDUCT_SOAK` as a multiplier (1 when unset or not a positive number).
fn soak() -> usize {
    std::env::var("AQUEDUCT_SOAK")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1)
}

/// The stamp kernel (tests/kernels/gfx1100/stress.co).
fn load_stamp(gpu: &Gpu) -> Program {
    let path = format!(
        "{}/../../tests/kernels/gfx1100/stress.co",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    gpu.load_bytes(&bytes, "stamp").expect("stress.co")
}

/// What stamp writes at word `i` for `seed`.
fn stamped(seed: u32, i: u32) -> u32 {
    seed.wrapping_mul(2_654_435_761).wrapping_add(i)
}

/// The seed and work-item count of submission `s`.
fn shape_of(s: usize) -> (u32, u32) {
    let seed = (s as u32).wrapping_mul(0x9e37_79b9) ^ 0x5eed;
    let n = 1 + (s as u32 * 7) % SLOT_WORDS as u32;
    (seed, n)
}

/// Write stamp's kernargs for submission `slot` into `block`; returns the
/// packet fields.
fn stamp_dispatch(
    kernel: &Kernel,
    block: &mut SubAllocation,
    out: u64,
    counters: u64,
    slot: usize,
) -> aqueduct_hsa::KernelDispatch {
    let (seed, n) = shape_of(slot);
    let grid = [n, 1, 1];
    let workgroup = [32u16, 1, 1];
    let shape = DispatchShape::new(grid, [32, 1, 1], 1);
    let mut b = KernargBuilder::new(&kernel.info);
    b.set_ptr(ArgRef::Index(0), out + (slot * SLOT_WORDS * 4) as u64)
        .unwrap();
    b.set_ptr(ArgRef::Index(1), counters).unwrap();
    b.set_u32(ArgRef::Index(2), slot as u32).unwrap();
    b.set_u32(ArgRef::Index(3), seed).unwrap();
    b.set_u32(ArgRef::Index(4), n).unwrap();
    let bytes = b.finish(&shape).expect("kernargs");
    block.as_mut_slice()[..bytes.len()].copy_from_slice(&bytes);
    kernel.dispatch(block.gpu_va(), grid, workgroup)
}

#[test]
fn eight_threads_share_a_64_packet_queue() {
    bounded(TIMEOUT, || {
        let per_thread = 1250 * soak();
        let total = THREADS * per_thread;
        let gpu = Gpu::new();
        let program = load_stamp(&gpu);
        let out = gpu.filled_u32(total * SLOT_WORDS, 0);
        let counters = gpu.filled_u32(total, 0);
        let queue = gpu.queue(64);
        let size = queue.size() as u64;

        // Hold the queue until the ring is full and submitters wait.
        let gate = gpu.signal(1);
        queue.submit_barrier_and(&[&gate], None).expect("gate");

        let start = Instant::now();
        std::thread::scope(|scope| {
            for t in 0..THREADS {
                let (gpu, program, queue, out, counters) =
                    (&gpu, &program, &queue, out.gpu_va(), counters.gpu_va());
                scope.spawn(move || {
                    let done = gpu.signal(per_thread as i64);
                    let kernargs = gpu.rt.kernargs(&gpu.agent).expect("kernarg region");
                    let mut blocks: Vec<SubAllocation> = (0..IN_FLIGHT)
                        .map(|_| kernargs.allocate(512).expect("kernarg block"))
                        .collect();
                    for k in 0..per_thread {
                        if k >= IN_FLIGHT {
                            // The packet that used this block (k - IN_FLIGHT) is done
                            // once this thread's signal has counted it.
                            let want = (per_thread - (k - IN_FLIGHT + 1)) as i64;
                            done.wait(
                                WaitCondition::Lt,
                                want + 1,
                                Some(TIMEOUT),
                                WaitHint::Blocked,
                            )
                            .unwrap_or_else(|e| panic!("thread {t} packet {k}: {e}"));
                        }
                        if k % 16 == 15 {
                            queue
                                .submit_barrier_and(&[], Some(&done))
                                .expect("barrier submit");
                            continue;
                        }
                        let slot = t * per_thread + k;
                        let block = &mut blocks[k % IN_FLIGHT];
                        let mut d = stamp_dispatch(&program.kernel, block, out, counters, slot);
                        d.completion_signal = done.handle();
                        queue
                            .submit_dispatch(&d.to_packet().unwrap())
                            .expect("dispatch submit");
                    }
                    done.wait(WaitCondition::Eq, 0, Some(TIMEOUT), WaitHint::Blocked)
                        .unwrap_or_else(|e| panic!("thread {t} final wait: {e}"));
                    drop(blocks);
                });
            }
            // Back-pressure: submitters reserve past the 64 slots, then wait.
            while queue.write_index() - queue.read_index() <= size {
                assert!(
                    start.elapsed() < TIMEOUT / 2,
                    "the ring never filled: write {} read {}",
                    queue.write_index(),
                    queue.read_index()
                );
                std::thread::sleep(Duration::from_millis(1));
            }
            gate.store(0, MemoryOrder::Release);
        });
        assert!(queue.error().is_none());
        assert_eq!(queue.read_index(), 1 + total as u64, "every packet retired");

        let counts = read_u32(&counters, total);
        let words = read_u32(&out, total * SLOT_WORDS);
        let mut dispatches = 0;
        for (slot, &count) in counts.iter().enumerate() {
            let (seed, n) = shape_of(slot);
            let is_barrier = (slot % per_thread) % 16 == 15;
            let want = if is_barrier { 0 } else { n };
            assert_eq!(count, want, "submission {slot}: work-items counted");
            let got = &words[slot * SLOT_WORDS..(slot + 1) * SLOT_WORDS];
            for (i, &w) in got.iter().enumerate() {
                let want = if !is_barrier && (i as u32) < n {
                    stamped(seed, i as u32)
                } else {
                    0
                };
                assert_eq!(w, want, "submission {slot} word {i}");
            }
            dispatches += usize::from(!is_barrier);
        }
        eprintln!(
            "{THREADS} threads x {per_thread} packets ({dispatches} dispatches) in {:?}",
            start.elapsed()
        );
    });
}

#[test]
fn one_signal_waited_from_many_threads() {
    bounded(TIMEOUT, || {
        let rounds = 200 * soak();
        let gpu = Gpu::new();
        let program = load_stamp(&gpu);
        let out = gpu.filled_u32(rounds * SLOT_WORDS, 0);
        let counters = gpu.filled_u32(rounds, 0);
        let queue = gpu.queue(64);
        let signal = gpu.signal(1);
        let mut block = gpu.rt.kernargs(&gpu.agent).unwrap().allocate(512).unwrap();
        // Waiters and the submitter meet twice a round: before the
        // submission (all waiting) and after every waiter saw the signal.
        let barrier = std::sync::Barrier::new(THREADS + 1);
        std::thread::scope(|scope| {
            for t in 0..THREADS {
                let (signal, barrier) = (&signal, &barrier);
                scope.spawn(move || {
                    let hint = if t % 2 == 0 {
                        WaitHint::Blocked
                    } else {
                        WaitHint::Active
                    };
                    for round in 0..rounds {
                        barrier.wait();
                        let v = signal
                            .wait(WaitCondition::Eq, 0, Some(TIMEOUT), hint)
                            .unwrap_or_else(|e| panic!("waiter {t} round {round}: {e}"));
                        assert_eq!(v, 0);
                        barrier.wait();
                    }
                });
            }
            for round in 0..rounds {
                barrier.wait();
                let mut d = stamp_dispatch(
                    &program.kernel,
                    &mut block,
                    out.gpu_va(),
                    counters.gpu_va(),
                    round,
                );
                d.completion_signal = signal.handle();
                queue.submit_dispatch(&d.to_packet().unwrap()).unwrap();
                barrier.wait();
                // Every waiter returned: re-arm for the next round.
                signal.store(1, MemoryOrder::Release);
            }
        });
        let counts = read_u32(&counters, rounds);
        for (round, &count) in counts.iter().enumerate() {
            assert_eq!(count, shape_of(round).1, "round {round}");
        }
    });
}

#[test]
fn four_queues_chained_by_barrier_packets() {
    bounded(TIMEOUT, || {
        const QUEUES: usize = 4;
        let rounds = 256 * soak();
        let gpu = Gpu::new();
        let stamp = load_stamp(&gpu);
        let copy = gpu.load("vector_copy");
        // slots[k]: queue k's output, SLOT_WORDS words per round.
        let slots: Vec<_> = (0..QUEUES)
            .map(|_| gpu.filled_u32(rounds * SLOT_WORDS, 0))
            .collect();
        let counters = gpu.filled_u32(rounds, 0);
        let done: Vec<Vec<_>> = (0..QUEUES)
            .map(|_| (0..rounds).map(|_| gpu.signal(1)).collect())
            .collect();
        let queues: Vec<_> = (0..QUEUES).map(|_| gpu.queue(64)).collect();
        let mut stamp_blocks: Vec<SubAllocation> = (0..rounds)
            .map(|_| gpu.rt.kernargs(&gpu.agent).unwrap().allocate(512).unwrap())
            .collect();
        let stamps: Vec<_> = stamp_blocks
            .iter_mut()
            .enumerate()
            .map(|(r, block)| {
                stamp_dispatch(
                    &stamp.kernel,
                    block,
                    slots[0].gpu_va(),
                    counters.gpu_va(),
                    r,
                )
            })
            .collect();
        let copies: Vec<Vec<_>> = (1..QUEUES)
            .map(|k| {
                (0..rounds)
                    .map(|r| {
                        let at = (r * SLOT_WORDS * 4) as u64;
                        gpu.launch(
                            &copy.kernel,
                            &[
                                Arg::Ptr(slots[k - 1].gpu_va() + at),
                                Arg::Ptr(slots[k].gpu_va() + at),
                                Arg::U32(SLOT_WORDS as u32),
                            ],
                            [SLOT_WORDS as u32, 1, 1],
                            [64, 1, 1],
                        )
                    })
                    .collect()
            })
            .collect();
        std::thread::scope(|scope| {
            for k in (0..QUEUES).rev() {
                let (queues, done, stamps, copies) = (&queues, &done, &stamps, &copies);
                scope.spawn(move || {
                    for r in 0..rounds {
                        let mut d = if k == 0 {
                            stamps[r]
                        } else {
                            queues[k]
                                .submit_barrier_and(&[&done[k - 1][r]], None)
                                .expect("barrier");
                            copies[k - 1][r].dispatch
                        };
                        d.completion_signal = done[k][r].handle();
                        queues[k]
                            .submit_dispatch(&d.to_packet().unwrap())
                            .expect("dispatch");
                    }
                    for (r, s) in done[k].iter().enumerate() {
                        s.wait(WaitCondition::Eq, 0, Some(TIMEOUT), WaitHint::Blocked)
                            .unwrap_or_else(|e| panic!("queue {k} round {r}: {e}"));
                    }
                });
            }
        });
        let first = read_u32(&slots[0], rounds * SLOT_WORDS);
        for r in 0..rounds {
            let (seed, n) = shape_of(r);
            for i in 0..SLOT_WORDS {
                let want = if (i as u32) < n {
                    stamped(seed, i as u32)
                } else {
                    0
                };
                assert_eq!(
                    first[r * SLOT_WORDS + i],
                    want,
                    "queue 0 round {r} word {i}"
                );
            }
        }
        for (k, slot) in slots.iter().enumerate().skip(1) {
            let got = read_u32(slot, rounds * SLOT_WORDS);
            if let Some(i) = (0..got.len()).find(|&i| got[i] != first[i]) {
                panic!(
                    "queue {k} round {} word {}: copied {:#x}, queue 0 wrote {:#x} \
                     (the copy ran before the barrier's dependency completed?)",
                    i / SLOT_WORDS,
                    i % SLOT_WORDS,
                    got[i],
                    first[i]
                );
            }
        }
        for (r, &count) in read_u32(&counters, rounds).iter().enumerate() {
            assert_eq!(count, shape_of(r).1, "round {r}: stamped once");
        }
    });
}
