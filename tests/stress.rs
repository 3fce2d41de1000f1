//! Stress through the facade: 8 threads share one device and submit 1250
//! times each (10 000 submissions), mixing
//! - `stamp` dispatches (tests/kernels/src/stress.cl), each writing its own
//!   output slot (a bind group at the slot's offset) and adding its
//!   work-item count to its own counter word: a lost submission leaves 0, one
//!   run twice leaves double;
//! - write_buffer uploads followed by a copy;
//! - copies from a buffer that is destroyed or dropped right after submit,
//!   and dispatches whose pipeline and bind group are dropped right after
//!   submit (both must stay alive until the work is done, as in wgpu);
//! - validation errors caught by the thread's own error scope (an unaligned
//!   copy), with a good submission in the same scope;
//! - readbacks mapped and checked at once (map_async + poll).
//!
//! Every output word, counter and copied word is checked against the host
//! at the end; no thread may see an error it did not cause. The facade's
//! kernarg and staging rings fill and wait under this load. A deadline
//! thread fails the test on a hang.
//!
//! Soak mode: `AQUEDUCT_SOAK=N` multiplies the submissions per thread by N
//! (`AQUEDUCT_SOAK=10 cargo test --release --test stress`).

use std::borrow::Cow;
use std::time::{Duration, Instant};

use aqueduct::util::{BufferInitDescriptor, DeviceExt};
use aqueduct::*;
use aqueduct_test_harness::facade::*;
use aqueduct_test_support::thread::bounded;

const THREADS: usize = 8;
const PER_THREAD: usize = 1250;
/// Words of output per submission slot (256 bytes: a storage offset
/// alignment).
const SLOT_WORDS: usize = 64;
/// Words each upload or copy moves.
const COPY_WORDS: usize = 16;
const DEADLINE: Duration = Duration::from_secs(240);

fn soak() -> usize {
    std::env::var("AQUEDUCT_SOAK")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1)
}

/// What submission `slot` does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    /// stamp into the slot.
    Stamp,
    /// stamp with a pipeline and bind group dropped right after submit.
    StampDroppedPipeline,
    /// write_buffer into `uploads`, then copy that range to `copies`.
    Upload,
    /// Copy from a fresh buffer destroyed (or dropped) right after submit.
    CopyFromDoomed,
    /// An invalid copy in an error scope, then a stamp in the same scope.
    ScopedErrorThenStamp,
    /// Read back the slot `slot - 1` stamped, mapped and checked at once.
    ReadBack,
}

fn op_of(slot: usize) -> Op {
    match slot % 16 {
        3 => Op::StampDroppedPipeline,
        5 | 13 => Op::Upload,
        7 => Op::CopyFromDoomed,
        9 => Op::ScopedErrorThenStamp,
        // The slot before it (8 or 0 mod 16) is a plain stamp.
        1 => Op::ReadBack,
        _ => Op::Stamp,
    }
}

fn stamps(op: Op) -> bool {
    matches!(
        op,
        Op::Stamp | Op::StampDroppedPipeline | Op::ScopedErrorThenStamp
    )
}

/// The seed and work-item count of slot `slot`'s stamp.
fn shape_of(slot: usize) -> (u32, u32) {
    let seed = (slot as u32).wrapping_mul(0x9e37_79b9) ^ 0xfeed;
    (seed, 1 + (slot as u32 * 13) % SLOT_WORDS as u32)
}

fn stamped(seed: u32, i: u32) -> u32 {
    seed.wrapping_mul(2_654_435_761).wrapping_add(i)
}

/// The words an upload or doomed copy of `slot` moves.
fn copy_words(slot: usize) -> Vec<u32> {
    (0..COPY_WORDS as u32)
        .map(|i| (slot as u32) << 8 | i | 0x8000_0000)
        .collect()
}

fn big_storage(device: &Device, words: usize) -> Buffer {
    storage_init(device, &vec![0; words])
}

struct Shared {
    c: Ctx,
    module: ShaderModule,
    pipeline: ComputePipeline,
    out: Buffer,
    counters: Buffer,
    uploads: Buffer,
    copies: Buffer,
}

fn stamp_command(
    s: &Shared,
    pipeline: &ComputePipeline,
    slot: usize,
) -> (CommandBuffer, BindGroup) {
    let (seed, n) = shape_of(slot);
    let device = &s.c.device;
    let bg = device.create_bind_group(&BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            BindGroupEntry {
                binding: 0,
                resource: BindingResource::Buffer(BufferBinding {
                    buffer: &s.out,
                    offset: (slot * SLOT_WORDS * 4) as u64,
                    size: std::num::NonZeroU64::new((SLOT_WORDS * 4) as u64),
                }),
            },
            BindGroupEntry {
                binding: 1,
                resource: s.counters.as_entire_binding(),
            },
        ],
    });
    let mut imm = Vec::new();
    for v in [slot as u32, seed, n] {
        imm.extend(v.to_le_bytes());
    }
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bg, &[]);
        pass.set_immediates(0, &imm);
        pass.dispatch_workgroups(n.div_ceil(64), 1, 1);
    }
    (enc.finish(), bg)
}

fn run_op(s: &Shared, slot: usize) {
    let (device, queue) = (&s.c.device, &s.c.queue);
    let range = (slot * COPY_WORDS * 4) as u64;
    let bytes = (COPY_WORDS * 4) as u64;
    match op_of(slot) {
        Op::Stamp => {
            let (cb, _bg) = stamp_command(s, &s.pipeline, slot);
            queue.submit([cb]);
        }
        Op::StampDroppedPipeline => {
            let pipeline = auto_pipeline(device, &s.module, "stamp");
            let (cb, bg) = stamp_command(s, &pipeline, slot);
            queue.submit([cb]);
            drop(bg);
            drop(pipeline);
        }
        Op::Upload => {
            queue.write_buffer(&s.uploads, range, bytemuck::cast_slice(&copy_words(slot)));
            let mut enc = device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(&s.uploads, range, &s.copies, range, bytes);
            queue.submit([enc.finish()]);
        }
        Op::CopyFromDoomed => {
            let src = device.create_buffer_init(&BufferInitDescriptor {
                label: Some("doomed"),
                contents: bytemuck::cast_slice(&copy_words(slot)),
                usage: BufferUsages::STORAGE | BufferUsages::COPY_SRC,
            });
            let mut enc = device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(&src, 0, &s.copies, range, bytes);
            queue.submit([enc.finish()]);
            if slot % 32 < 16 {
                src.destroy();
            }
            drop(src);
        }
        Op::ScopedErrorThenStamp => {
            let scope = device.push_error_scope(ErrorFilter::Validation);
            let mut enc = device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(&s.uploads, range, &s.copies, range, 3);
            let bad = enc.finish();
            let (cb, _bg) = stamp_command(s, &s.pipeline, slot);
            queue.submit([cb]);
            let err = scope
                .pop_now()
                .expect("the unaligned copy is reported here");
            let typed =
                std::error::Error::source(&err).and_then(|s| s.downcast_ref::<ValidationError>());
            assert!(
                matches!(
                    typed.and_then(command_error),
                    Some(CommandError::Copy(CopyError::Unaligned {
                        field: CopyField::Size,
                        value: 3
                    }))
                ),
                "slot {slot}: {err}"
            );
            drop(bad);
        }
        Op::ReadBack => {
            let stamped_slot = slot - 1;
            assert_eq!(op_of(stamped_slot), Op::Stamp);
            let rb = readback_buffer(device, (SLOT_WORDS * 4) as u64);
            let mut enc = device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(
                &s.out,
                (stamped_slot * SLOT_WORDS * 4) as u64,
                &rb,
                0,
                (SLOT_WORDS * 4) as u64,
            );
            queue.submit([enc.finish()]);
            let got = aqueduct::util::read_mapped(device, &rb).expect("readback");
            let got: &[u32] = bytemuck::cast_slice(&got);
            check_slot(stamped_slot, got);
        }
    }
}

/// A stamp slot's words: the stamped prefix, zeros after it.
fn check_slot(slot: usize, got: &[u32]) {
    let (seed, n) = shape_of(slot);
    for (i, &w) in got.iter().enumerate() {
        let want = if stamps(op_of(slot)) && (i as u32) < n {
            stamped(seed, i as u32)
        } else {
            0
        };
        assert_eq!(w, want, "slot {slot} word {i}");
    }
}

#[test]
fn eight_threads_mix_submissions_on_one_device() {
    bounded(DEADLINE, || {
        let per_thread = PER_THREAD * soak();
        let total = THREADS * per_thread;
        let c = ctx();
        let module = code_object_module(
            &c.device,
            "stress",
            Cow::Owned(test_kernel("stress")),
            [64, 1, 1],
        );
        let pipeline = expect_valid(&c.device, || auto_pipeline(&c.device, &module, "stamp"));
        let s = Shared {
            out: big_storage(&c.device, total * SLOT_WORDS),
            counters: big_storage(&c.device, total),
            uploads: big_storage(&c.device, total * COPY_WORDS),
            copies: big_storage(&c.device, total * COPY_WORDS),
            module,
            pipeline,
            c,
        };
        let start = Instant::now();
        std::thread::scope(|scope| {
            for t in 0..THREADS {
                let s = &s;
                scope.spawn(move || {
                    let errors = s.c.device.push_error_scope(ErrorFilter::Internal);
                    for k in 0..per_thread {
                        run_op(s, t * per_thread + k);
                    }
                    if let Some(e) = errors.pop_now() {
                        panic!("thread {t}: {e}");
                    }
                });
            }
        });
        s.c.device
            .poll(PollType::wait_indefinitely())
            .expect("final poll");
        let submitted = start.elapsed();

        let counters = read_words(&s.c, &s.counters);
        let out = read_words(&s.c, &s.out);
        let copies = read_words(&s.c, &s.copies);
        for slot in 0..total {
            let op = op_of(slot);
            let want = if stamps(op) { shape_of(slot).1 } else { 0 };
            assert_eq!(
                counters[slot], want,
                "slot {slot} ({op:?}): work-items counted"
            );
            check_slot(slot, &out[slot * SLOT_WORDS..(slot + 1) * SLOT_WORDS]);
            let moved = &copies[slot * COPY_WORDS..(slot + 1) * COPY_WORDS];
            if matches!(op, Op::Upload | Op::CopyFromDoomed) {
                assert_eq!(moved, copy_words(slot), "slot {slot} ({op:?})");
            } else {
                assert_eq!(moved, [0; COPY_WORDS], "slot {slot} ({op:?})");
            }
        }
        eprintln!(
            "{THREADS} threads x {per_thread} submissions: {submitted:?} to run, {:?} with checks",
            start.elapsed()
        );
    });
}

/// Faults under load: while 4 threads stamp and read back, a fifth submits
/// 16 trapping dispatches. Work outstanding at a fault is undefined (the
/// facade says so), so only this is required: no thread hangs, every error
/// any thread catches is a fault of trap_now, the faults are all reported,
/// and afterwards the device's results are exact again.
#[test]
fn faults_under_load_never_hang_the_device() {
    bounded(DEADLINE, || {
        let c = ctx();
        let stress = code_object_module(
            &c.device,
            "stress",
            Cow::Owned(test_kernel("stress")),
            [64, 1, 1],
        );
        let faults = code_object_module(
            &c.device,
            "faults",
            Cow::Owned(test_kernel("faults")),
            [64, 1, 1],
        );
        let stamp_p = expect_valid(&c.device, || auto_pipeline(&c.device, &stress, "stamp"));
        let trap_p = expect_valid(&c.device, || auto_pipeline(&c.device, &faults, "trap_now"));
        let (c, stamp_p, trap_p) = (&c, &stamp_p, &trap_p);
        let one_stamp = |slot: u32, seed: u32| -> Vec<u32> {
            let out = storage(&c.device, 256);
            let counters = storage_init(&c.device, &[0; 4]);
            let bg = bind_group(&c.device, stamp_p, 0, &[&out, &counters]);
            let mut enc = c.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                pass.set_pipeline(stamp_p);
                pass.set_bind_group(0, &bg, &[]);
                let mut imm = Vec::new();
                for v in [slot, seed, 64] {
                    imm.extend(v.to_le_bytes());
                }
                pass.set_immediates(0, &imm);
                pass.dispatch_workgroups(1, 1, 1);
            }
            c.queue.submit([enc.finish()]);
            read_words(c, &out)
        };
        let faults_seen = std::sync::atomic::AtomicUsize::new(0);
        let check_errors = |scope: ErrorScopeGuard, who: &str| {
            if let Some(e) = scope.pop_now() {
                let text = e.to_string();
                assert!(
                    text.contains("GPU fault in kernel trap_now"),
                    "{who} caught something else: {text}"
                );
                faults_seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        };
        std::thread::scope(|scope| {
            for t in 0..4u32 {
                let (one_stamp, check_errors) = (&one_stamp, &check_errors);
                scope.spawn(move || {
                    for k in 0..100u32 {
                        // One scope per round: a scope keeps only its first error.
                        let errors = c.device.push_error_scope(ErrorFilter::Internal);
                        let _ = one_stamp(3, t * 1000 + k);
                        check_errors(errors, &format!("thread {t}"));
                    }
                });
            }
            scope.spawn(|| {
                for _ in 0..16 {
                    let errors = c.device.push_error_scope(ErrorFilter::Internal);
                    let out = storage(&c.device, 128 * 4);
                    let bg = bind_group(&c.device, trap_p, 0, &[&out]);
                    let mut enc = c.device.create_command_encoder(&Default::default());
                    {
                        let mut pass = enc.begin_compute_pass(&Default::default());
                        pass.set_pipeline(trap_p);
                        pass.set_bind_group(0, &bg, &[]);
                        pass.set_immediates(0, &128u32.to_le_bytes());
                        pass.dispatch_workgroups(2, 1, 1);
                    }
                    c.queue.submit([enc.finish()]);
                    c.device.poll(PollType::wait_indefinitely()).expect("poll");
                    check_errors(errors, "the fault thread");
                    std::thread::sleep(Duration::from_millis(2));
                }
            });
        });
        let errors = c.device.push_error_scope(ErrorFilter::Internal);
        c.device
            .poll(PollType::wait_indefinitely())
            .expect("final poll");
        check_errors(errors, "the final poll");
        let seen = faults_seen.load(std::sync::atomic::Ordering::Relaxed);
        assert!(
            (1..=16).contains(&seen),
            "{seen} fault reports for 16 trapping submissions"
        );
        // Exact again.
        let errors = c.device.push_error_scope(ErrorFilter::Internal);
        for k in 0..4 {
            let want: Vec<u32> = (0..64).map(|i| stamped(0xabc + k, i)).collect();
            assert_eq!(one_stamp(1, 0xabc + k), want, "after the faults");
        }
        assert!(errors.pop_now().is_none(), "no fault after the storm");
    });
}
