//! Timestamp queries on gfxsim: a query set, encoder and pass timestamps
//! around a compute-heavy dispatch, resolve_query_set, the period, the
//! lowering (timestamps are barrier-AND markers with the barrier bit), the
//! CP's own stamps in the query set's signals, and the WebGPU validation
//! rules. gfxsim's realtime counter is 100 MHz ticks of the host monotonic
//! clock, so the GPU values can be bracketed by host reads of the same clock.

use std::time::Instant;

use aqueduct::kfd::abi::{AMD_SIGNAL_KIND_USER, AmdSignal, packet_type};
use aqueduct::*;
use aqueduct_isa::realtime::realtime_ticks;
use aqueduct_test_harness::facade::*;

/// Records one command into an encoder.
type RecordFn<'a> = Box<dyn Fn(&mut CommandEncoder) + 'a>;

fn query_set(device: &Device, count: u32) -> QuerySet {
    device.create_query_set(&QuerySetDescriptor {
        label: Some("timestamps"),
        ty: QueryType::Timestamp,
        count,
    })
}

fn resolve_buffer(device: &Device, size: u64) -> Buffer {
    device.create_buffer(&BufferDescriptor {
        label: Some("resolve"),
        size,
        usage: BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

fn read_u64s(c: &Ctx, src: &Buffer, offset: u64, count: usize) -> Vec<u64> {
    let words = read_words(c, src);
    let bytes: &[u8] = bytemuck::cast_slice(&words);
    bytes[offset as usize..offset as usize + 8 * count]
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

#[test]
fn timestamps_bracket_a_long_dispatch() {
    let c = ctx();
    assert!(c.adapter.features().contains(Features::TIMESTAMP_QUERY));
    assert_eq!(c.queue.get_timestamp_period(), 10.0);
    let module = kernel_module(&c.device, "sqrt_exp_loop", [64, 1, 1]);
    let pipeline = auto_pipeline(&c.device, &module, "sqrt_exp_loop");
    let n = 256u32;
    let input: Vec<u32> = (0..n).map(|i| (i as f32 * 0.25).to_bits()).collect();
    let inp = storage_init(&c.device, &input);
    let out = storage(&c.device, u64::from(n) * 4);
    let bg = bind_group(&c.device, &pipeline, 0, &[&inp, &out]);
    let qs = query_set(&c.device, 5);
    let resolved = resolve_buffer(&c.device, 512);
    c.device.poll(PollType::wait_indefinitely()).unwrap();

    let mut enc = c.device.create_command_encoder(&Default::default());
    expect_valid(&c.device, || {
        enc.write_timestamp(&qs, 0);
        {
            let mut pass = enc.begin_compute_pass(&ComputePassDescriptor {
                label: Some("long"),
                timestamp_writes: Some(ComputePassTimestampWrites {
                    query_set: &qs,
                    beginning_of_pass_write_index: Some(1),
                    end_of_pass_write_index: Some(3),
                }),
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bg, &[]);
            pass.set_immediates(0, &2000u32.to_le_bytes());
            pass.set_immediates(4, &n.to_le_bytes());
            pass.dispatch_workgroups(n / 64, 1, 1);
            pass.write_timestamp(&qs, 2);
        }
        enc.write_timestamp(&qs, 4);
        enc.resolve_query_set(&qs, 0..5, &resolved, 256);
    });
    let cb = enc.finish();
    let packets = cb.debug_packets();
    for p in &packets {
        let marker = matches!(p.role, PacketRole::Timestamp | PacketRole::Completion);
        assert_eq!(p.packet_type == packet_type::BARRIER_AND, marker, "{p:?}");
    }
    let roles: Vec<(PacketRole, bool)> = packets.iter().map(|p| (p.role, p.barrier)).collect();
    assert_eq!(
        roles,
        [
            (PacketRole::Timestamp, true),
            (PacketRole::Timestamp, true),
            (PacketRole::Dispatch, false),
            (PacketRole::Timestamp, true),
            (PacketRole::Timestamp, true),
            (PacketRole::Timestamp, true),
            (PacketRole::ResolveQuery, true),
            (PacketRole::Completion, true),
        ]
    );

    let host_start = Instant::now();
    let ticks_before = realtime_ticks();
    c.queue.submit([cb]);
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    let ticks_after = realtime_ticks();
    let host_ns = host_start.elapsed().as_nanos() as f64;

    let t = read_u64s(&c, &resolved, 256, 5);
    // Markers with nothing between them may share a 10 ns tick; the
    // dispatch between 1 and 2 takes longer than that.
    assert!(
        t.windows(2).all(|w| w[0] <= w[1]) && t[1] < t[2],
        "timestamps out of order: {t:?}"
    );
    assert!(
        ticks_before <= t[0] && t[4] <= ticks_after,
        "GPU timestamps {t:?} outside the host bracket {ticks_before}..{ticks_after}"
    );
    let period = f64::from(c.queue.get_timestamp_period());
    let dispatch_ns = (t[2] - t[1]) as f64 * period;
    let total_ns = (t[4] - t[0]) as f64 * period;
    assert!(
        dispatch_ns > 0.0 && total_ns <= host_ns,
        "dispatch {dispatch_ns} ns, total {total_ns} ns, host {host_ns} ns"
    );
    // The dispatch really ran.
    let results = read_words(&c, &out);
    assert!(results.iter().all(|&w| f32::from_bits(w) > 0.0));
    // The untouched resolve bytes stay 0.
    assert_eq!(read_u64s(&c, &resolved, 0, 32), vec![0u64; 32]);
}

/// The `amd_signal_t` of query `index`, read through gfxsim's view of GPU
/// memory: what the CP wrote there.
fn query_signal(
    sim: &aqueduct::gfxsim::SimDevice,
    c: &Ctx,
    qs: &QuerySet,
    index: u32,
) -> AmdSignal {
    let address = qs.signal_address(index).expect("a valid query");
    sim.with_gpu_memory(c.adapter.agent().gpu_id, |m| {
        let p = m
            .translate(address, 64, aqueduct_isa::Access::Read)
            .expect("the query's signal is mapped");
        // SAFETY: translate gave 64 readable bytes at p; the queue is idle.
        unsafe { std::ptr::read_unaligned(p.cast::<AmdSignal>()) }
    })
    .expect("the adapter's GPU")
}

/// A pass whose dispatches read the realtime counter themselves
/// (kernels/' write_timestamp, before and after a long dispatch): the
/// pass's beginning and end timestamps bracket both reads, each query's
/// resolved value is the `end_ts` the CP wrote into its signal (after the
/// `start_ts` it wrote when the marker launched), and the HSA clock
/// translation puts them between host clock reads around the submission.
#[test]
fn pass_timestamps_bracket_the_dispatches_and_are_the_cps_stamps() {
    let (c, sim) = sim_ctx();
    let stamp = kernel_module(&c.device, "write_timestamp", [64, 1, 1]);
    let stamp = auto_pipeline(&c.device, &stamp, "write_timestamp");
    let work = kernel_module(&c.device, "sqrt_exp_loop", [64, 1, 1]);
    let work = auto_pipeline(&c.device, &work, "sqrt_exp_loop");
    let n = 256u32;
    let input: Vec<u32> = (0..n).map(|i| (i as f32 * 0.5).to_bits()).collect();
    let inp = storage_init(&c.device, &input);
    let out = storage(&c.device, u64::from(n) * 4);
    let work_bg = bind_group(&c.device, &work, 0, &[&inp, &out]);
    let ticks = storage(&c.device, 16);
    let stamp_bg = bind_group(&c.device, &stamp, 0, &[&ticks]);
    let qs = query_set(&c.device, 2);
    let resolved = resolve_buffer(&c.device, 256);
    c.device.poll(PollType::wait_indefinitely()).unwrap();

    let mut enc = c.device.create_command_encoder(&Default::default());
    expect_valid(&c.device, || {
        {
            let mut pass = enc.begin_compute_pass(&ComputePassDescriptor {
                label: Some("bracketed"),
                timestamp_writes: Some(ComputePassTimestampWrites {
                    query_set: &qs,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }),
            });
            pass.set_pipeline(&stamp);
            pass.set_bind_group(0, &stamp_bg, &[]);
            pass.set_immediates(0, &0u32.to_le_bytes());
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&work);
            pass.set_bind_group(0, &work_bg, &[]);
            pass.set_immediates(0, &500u32.to_le_bytes());
            pass.set_immediates(4, &n.to_le_bytes());
            pass.dispatch_workgroups(n / 64, 1, 1);
            pass.set_pipeline(&stamp);
            pass.set_bind_group(0, &stamp_bg, &[]);
            pass.set_immediates(0, &1u32.to_le_bytes());
            pass.dispatch_workgroups(1, 1, 1);
        }
        enc.resolve_query_set(&qs, 0..2, &resolved, 0);
    });
    let host_before = aqueduct::hsa::system_timestamp();
    c.queue.submit([enc.finish()]);
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    let host_after = aqueduct::hsa::system_timestamp();

    let t = read_u64s(&c, &resolved, 0, 2);
    let k = read_u64s(&c, &ticks, 0, 2);
    assert!(
        t[0] <= k[0] && k[0] < k[1] && k[1] <= t[1],
        "pass {}..{} does not bracket its dispatches' counter reads {k:?}",
        t[0],
        t[1]
    );
    for (index, &resolved) in t.iter().enumerate() {
        let signal = query_signal(&sim, &c, &qs, index as u32);
        assert_eq!(signal.kind, AMD_SIGNAL_KIND_USER);
        assert_eq!(signal.event_mailbox_ptr, 0);
        assert_eq!(signal.end_ts, resolved, "query {index}: {signal:?}");
        assert!(
            0 < signal.start_ts && signal.start_ts <= signal.end_ts,
            "{signal:?}"
        );
    }
    let runtime = c.adapter.runtime();
    let agent = c.adapter.agent();
    let system: Vec<u64> = t
        .iter()
        .map(|&tick| runtime.gpu_ticks_to_system(agent, tick).expect("translate"))
        .collect();
    // The translation interpolates two clock samples; allow 1 ms of slack.
    let slack = 1_000_000;
    assert!(
        host_before <= system[0] + slack && system[1] <= host_after + slack,
        "{system:?} outside {host_before}..{host_after}"
    );
}

/// Resolving a sub-range at an offset gathers each query's `end_ts` (stride
/// 64 in the storage) into consecutive 8-byte words, leaves every other
/// byte of the destination alone, and unwritten queries resolve to 0.
#[test]
fn resolves_gather_end_ts_at_their_offset_and_touch_nothing_else() {
    let (c, sim) = sim_ctx();
    let qs = query_set(&c.device, 6);
    let resolved = c.device.create_buffer(&BufferDescriptor {
        label: Some("resolve"),
        size: 1024,
        usage: BufferUsages::QUERY_RESOLVE | BufferUsages::COPY_SRC | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let pattern = vec![0xa5u8; 1024];
    c.queue.write_buffer(&resolved, 0, &pattern);
    let mut enc = c.device.create_command_encoder(&Default::default());
    for index in [1, 3, 4] {
        enc.write_timestamp(&qs, index);
    }
    enc.resolve_query_set(&qs, 2..5, &resolved, 256);
    enc.resolve_query_set(&qs, 0..6, &resolved, 512);
    enc.resolve_query_set(&qs, 4..4, &resolved, 768);
    c.queue.submit([enc.finish()]);
    c.device.poll(PollType::wait_indefinitely()).unwrap();
    let end_ts: Vec<u64> = (0..6)
        .map(|i| query_signal(&sim, &c, &qs, i).end_ts)
        .collect();
    assert_eq!(end_ts[0], 0);
    assert_eq!(end_ts[2], 0);
    assert_eq!(end_ts[5], 0);
    assert!(
        0 < end_ts[1] && end_ts[1] <= end_ts[3] && end_ts[3] <= end_ts[4],
        "{end_ts:?}"
    );
    let words = read_words(&c, &resolved);
    let bytes: &[u8] = bytemuck::cast_slice(&words);
    assert_eq!(read_u64s(&c, &resolved, 256, 3), end_ts[2..5]);
    assert_eq!(read_u64s(&c, &resolved, 512, 6), end_ts);
    for (range, what) in [
        (0..256, "before the first resolve"),
        (256 + 24..512, "between the resolves"),
        (
            512 + 48..1024,
            "after the second resolve (and the empty one)",
        ),
    ] {
        assert!(
            bytes[range.clone()].iter().all(|&b| b == 0xa5),
            "bytes {range:?} {what} changed"
        );
    }
}

#[test]
fn unwritten_queries_resolve_to_zero_and_later_writes_are_later() {
    let c = ctx();
    let qs = query_set(&c.device, 3);
    let resolved = resolve_buffer(&c.device, 256);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.write_timestamp(&qs, 2);
    enc.resolve_query_set(&qs, 0..3, &resolved, 0);
    c.queue.submit([enc.finish()]);
    let first = read_u64s(&c, &resolved, 0, 3);
    assert_eq!(&first[..2], &[0, 0]);
    assert_ne!(first[2], 0);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.write_timestamp(&qs, 0);
    enc.resolve_query_set(&qs, 0..1, &resolved, 0);
    c.queue.submit([enc.finish()]);
    let second = read_u64s(&c, &resolved, 0, 3);
    assert!(second[0] > first[2], "{second:?} vs {first:?}");
    assert_eq!(&second[1..], &first[1..]);
}

/// The query set error behind an encoder's first failed command, whether
/// it came from `write_timestamp`, `resolve_query_set` or a pass's
/// `timestamp_writes`.
fn query_use_error(e: &ValidationError) -> Option<&QueryUseError> {
    match command_error(e)? {
        CommandError::WriteTimestamp(TimestampError::Query(q))
        | CommandError::ResolveQuerySet(ResolveQueryError::Query(q)) => Some(q),
        CommandError::Pass {
            source: PassError::TimestampWrites(TimestampError::Query(q)),
            ..
        } => Some(q),
        _ => None,
    }
}

/// The timestamp error of a pass's `timestamp_writes`.
fn timestamp_writes_error(e: &ValidationError) -> Option<&TimestampError> {
    match pass_error(e)? {
        PassError::TimestampWrites(t) => Some(t),
        _ => None,
    }
}

#[test]
fn query_sets_need_the_timestamp_feature() {
    let c = ctx_with(|a| DeviceDescriptor {
        required_limits: a.limits(),
        ..Default::default()
    });
    let qs = expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::QuerySet(QuerySetError::MissingTimestampFeature { .. })
            )
        },
        || query_set(&c.device, 2),
    );
    let resolved = resolve_buffer(&c.device, 256);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.resolve_query_set(&qs, 0..2, &resolved, 0);
    expect_validation(
        &c.device,
        |e| matches!(query_use_error(e), Some(QueryUseError::Invalid { label: Some(l) }) if l == "timestamps"),
        || enc.finish(),
    );
    // The pass needs the feature too.
    let mut enc = c.device.create_command_encoder(&Default::default());
    drop(enc.begin_compute_pass(&ComputePassDescriptor {
        label: None,
        timestamp_writes: Some(ComputePassTimestampWrites {
            query_set: &qs,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: None,
        }),
    }));
    expect_validation(
        &c.device,
        |e| {
            matches!(
                timestamp_writes_error(e),
                Some(TimestampError::MissingTimestampFeature)
            )
        },
        || enc.finish(),
    );
}

#[test]
fn inside_encoder_and_pass_timestamps_need_their_features() {
    let c = ctx_with(|a| DeviceDescriptor {
        required_features: Features::TIMESTAMP_QUERY,
        required_limits: a.limits(),
        ..Default::default()
    });
    let qs = expect_valid(&c.device, || query_set(&c.device, 2));
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.write_timestamp(&qs, 0);
    expect_validation(
        &c.device,
        |e| {
            matches!(
                command_error(e),
                Some(CommandError::WriteTimestamp(
                    TimestampError::MissingInsideEncodersFeature
                ))
            )
        },
        || enc.finish(),
    );
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.begin_compute_pass(&Default::default())
        .write_timestamp(&qs, 0);
    expect_validation(
        &c.device,
        |e| {
            matches!(
                pass_error(e),
                Some(PassError::WriteTimestamp {
                    index: 0,
                    source: TimestampError::MissingInsidePassesFeature
                })
            )
        },
        || enc.finish(),
    );
    // Pass timestamp_writes need only TIMESTAMP_QUERY.
    let mut enc = c.device.create_command_encoder(&Default::default());
    drop(enc.begin_compute_pass(&ComputePassDescriptor {
        label: None,
        timestamp_writes: Some(ComputePassTimestampWrites {
            query_set: &qs,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }),
    }));
    expect_valid(&c.device, || enc.finish());
}

#[test]
fn bad_indices_offsets_and_usages_are_validation_errors() {
    let c = ctx();
    let qs = query_set(&c.device, 4);
    let resolved = resolve_buffer(&c.device, 512);
    let index_out_of_range = |index: u32| {
        move |e: &ValidationError| {
            matches!(
                query_use_error(e),
                Some(QueryUseError::IndexOutOfRange { index: i, count: 4, .. }) if *i == index
            )
        }
    };
    let resolve = |e: &ValidationError| match command_error(e) {
        Some(CommandError::ResolveQuerySet(r)) => Some(r.clone()),
        _ => None,
    };
    type Expected<'a> = Box<dyn Fn(&ValidationError) -> bool + 'a>;
    let cases: Vec<(Expected, RecordFn)> = vec![
        (
            Box::new(index_out_of_range(4)),
            Box::new(|e| e.write_timestamp(&qs, 4)),
        ),
        (
            Box::new(|e| {
                matches!(
                    resolve(e),
                    Some(ResolveQueryError::RangeOutOfBounds {
                        start: 2,
                        end: 5,
                        count: 4,
                        ..
                    })
                )
            }),
            Box::new(|e| e.resolve_query_set(&qs, 2..5, &resolved, 0)),
        ),
        (
            Box::new(|e| {
                matches!(
                    resolve(e),
                    Some(ResolveQueryError::UnalignedOffset { offset: 8 })
                )
            }),
            Box::new(|e| e.resolve_query_set(&qs, 0..4, &resolved, 8)),
        ),
        (
            Box::new(|e| {
                matches!(
                    resolve(e),
                    Some(ResolveQueryError::Overrun {
                        size: 32,
                        offset: 512,
                        ..
                    })
                )
            }),
            Box::new(|e| e.resolve_query_set(&qs, 0..4, &resolved, 512)),
        ),
        (
            Box::new(|e| {
                matches!(
                    timestamp_writes_error(e),
                    Some(TimestampError::SameWriteIndices { index: 1 })
                )
            }),
            Box::new(|e| {
                drop(e.begin_compute_pass(&ComputePassDescriptor {
                    label: None,
                    timestamp_writes: Some(ComputePassTimestampWrites {
                        query_set: &qs,
                        beginning_of_pass_write_index: Some(1),
                        end_of_pass_write_index: Some(1),
                    }),
                }))
            }),
        ),
        (
            Box::new(index_out_of_range(9)),
            Box::new(|e| {
                drop(e.begin_compute_pass(&ComputePassDescriptor {
                    label: None,
                    timestamp_writes: Some(ComputePassTimestampWrites {
                        query_set: &qs,
                        beginning_of_pass_write_index: None,
                        end_of_pass_write_index: Some(9),
                    }),
                }))
            }),
        ),
    ];
    for (expected, record) in &cases {
        let mut enc = c.device.create_command_encoder(&Default::default());
        record(&mut enc);
        expect_validation(&c.device, expected, || enc.finish());
    }
    // A destination without QUERY_RESOLVE.
    let plain = storage(&c.device, 256);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.resolve_query_set(&qs, 0..4, &plain, 0);
    expect_validation(
        &c.device,
        |e| {
            matches!(
                resolve(e),
                Some(ResolveQueryError::MissingQueryResolve { .. })
            )
        },
        || enc.finish(),
    );
    // Too many queries.
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::QuerySet(QuerySetError::TooManyQueries { count, .. })
                    if *count == QUERY_SET_MAX_QUERIES + 1
            )
        },
        || query_set(&c.device, QUERY_SET_MAX_QUERIES + 1),
    );
}

#[test]
fn destroyed_query_sets_are_validation_errors_and_in_flight_work_finishes() {
    let c = ctx();
    let qs = query_set(&c.device, 3);
    let resolved = resolve_buffer(&c.device, 256);
    // Recorded before the destroy, submitted after it.
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.write_timestamp(&qs, 0);
    let recorded_before = expect_valid(&c.device, || enc.finish());
    // Submitted, then destroyed while it may still run: it completes, and
    // its resolved values are real timestamps.
    let before = realtime_ticks();
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.write_timestamp(&qs, 1);
    enc.resolve_query_set(&qs, 0..3, &resolved, 0);
    c.queue.submit([enc.finish()]);
    expect_valid(&c.device, || qs.destroy());
    let got = read_u64s(&c, &resolved, 0, 3);
    assert_eq!(got[0], 0, "slot 0 was never written");
    assert!(got[1] >= before, "{got:?} against {before}");
    assert_eq!(got[2], 0, "slot 2 was never written");

    let destroyed = |e: &ValidationError| {
        matches!(
            query_use_error(e),
            Some(QueryUseError::Destroyed { label: Some(l) }) if l == "timestamps"
        )
    };
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.write_timestamp(&qs, 0);
    expect_validation(&c.device, destroyed, || enc.finish());
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.resolve_query_set(&qs, 0..3, &resolved, 0);
    expect_validation(&c.device, destroyed, || enc.finish());
    let mut enc = c.device.create_command_encoder(&Default::default());
    drop(enc.begin_compute_pass(&ComputePassDescriptor {
        label: None,
        timestamp_writes: Some(ComputePassTimestampWrites {
            query_set: &qs,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: None,
        }),
    }));
    expect_validation(&c.device, destroyed, || enc.finish());
    expect_validation(
        &c.device,
        |e| {
            matches!(
                e,
                ValidationError::Queue(QueueError::BufferDestroyed { buffer, .. })
                    if buffer.label.as_deref() == Some("query set storage for timestamps")
            )
        },
        || c.queue.submit([recorded_before]),
    );
    // A second destroy does nothing, and the device still works.
    expect_valid(&c.device, || qs.destroy());
    let fresh = query_set(&c.device, 1);
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.write_timestamp(&fresh, 0);
    enc.resolve_query_set(&fresh, 0..1, &resolved, 0);
    c.queue.submit([enc.finish()]);
    assert_ne!(read_u64s(&c, &resolved, 0, 1)[0], 0);
}
