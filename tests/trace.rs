//! The timeline trace (`aqueduct::trace`): the file parses as Chrome
//! trace-event JSON with one complete slice per dispatch named after its
//! kernel, gfxsim's per-dispatch counters match instructions counted by
//! hand, and the host tracks record submit, map and waits.
//!
//! One test: a trace session is process-wide, so tests in parallel would
//! share it.

use aqueduct::*;
use aqueduct_test_harness::facade::*;
use serde_json::Value;

/// The events of a finished trace file.
fn events(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("trace file");
    let json: Value = serde_json::from_str(&text).expect("the trace is JSON");
    json["traceEvents"]
        .as_array()
        .expect("a traceEvents array")
        .clone()
}

fn slices<'a>(events: &'a [Value], cat: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == cat)
        .collect()
}

/// A dispatch running for tens of milliseconds on gfxsim: `sqrt_exp_loop`
/// (kernels/src/sqrt_exp_loop.cl) over 4096 items, 20000 rounds each.
fn slow_work(c: &Ctx) -> CommandBuffer {
    const ITEMS: u32 = 4096;
    let module = kernel_module(&c.device, "sqrt_exp_loop", [64, 1, 1]);
    let pipeline = auto_pipeline(&c.device, &module, "sqrt_exp_loop");
    let input = storage(&c.device, u64::from(ITEMS) * 4);
    let out = storage(&c.device, u64::from(ITEMS) * 4);
    let bg = bind_group(&c.device, &pipeline, 0, &[&input, &out]);
    let mut enc = c.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bg, &[]);
        // Iterations per item: enough that the translated kernel still runs
        // for tens of milliseconds, so a host callback submitted right after
        // it finds the GPU busy and gets its barrier.
        pass.set_immediates(0, &20_000u32.to_le_bytes());
        pass.set_immediates(4, &ITEMS.to_le_bytes());
        pass.dispatch_workgroups(ITEMS / 64, 1, 1);
    }
    enc.finish()
}

/// Repeats of one dispatch in a submission: more than two pages of trace
/// signals.
const REPEATS: u32 = 150;

#[test]
fn a_trace_holds_each_dispatch_with_its_counters_and_the_host_tracks() {
    let dir = std::env::temp_dir().join(format!("aqueduct-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("t.json");
    let (c, _sim) = sim_ctx();
    let session = trace::start(&path).expect("trace starts");
    assert!(
        matches!(
            trace::start(dir.join("other.json")),
            Err(trace::TraceError::AlreadyActive { .. })
        ),
        "a second session is refused"
    );

    let (work, dst) = doubling_work(&c);
    c.queue.submit([work]);
    assert_eq!(read_words(&c, &dst), [2, 4, 6, 8]);
    // A copy large enough for the SDMA engine (src/queue/sdma.rs: 32 KiB on).
    let words: Vec<u32> = (0..16 * 1024).collect();
    let big = storage_init(&c.device, &words);
    let big_copy = storage(&c.device, big.size());
    let mut enc = c.device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&big, 0, &big_copy, 0, big.size());
    c.queue.submit([enc.finish()]);
    assert_eq!(read_words(&c, &big_copy), words);
    // A host callback behind GPU work (a dispatch of tens of milliseconds,
    // so the callback is queued while it runs): its barrier on the compute
    // queue, then the callback on its host track.
    c.queue.submit([slow_work(&c)]);
    let (ran_tx, ran_rx) = std::sync::mpsc::channel();
    c.queue
        .submit_host_callback(move || ran_tx.send(()).expect("the test waits"));
    ran_rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the host callback runs");
    c.device.poll(PollType::wait_indefinitely()).expect("idle");
    // One dispatch repeated: each packet completes a trace signal of its
    // own, over several pages of the device's signal pool (64 signals a
    // page); the second submission takes pages the first gave back.
    let module = kernel_module(&c.device, "empty", [64, 1, 1]);
    let empty = auto_pipeline(&c.device, &module, "empty");
    for _ in 0..2 {
        let mut enc = c.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&empty);
            for _ in 0..REPEATS {
                pass.dispatch_workgroups(1, 1, 1);
            }
        }
        c.queue.submit([enc.finish()]);
        c.device.poll(PollType::wait_indefinitely()).expect("idle");
    }
    session.stop().expect("trace written");

    let events = events(&path);
    let dispatches = slices(&events, "dispatch");
    let repeats: Vec<_> = dispatches.iter().filter(|e| e["name"] == "empty").collect();
    assert_eq!(
        repeats.len(),
        2 * REPEATS as usize,
        "a slice per repeated dispatch"
    );
    for run in repeats.chunks(REPEATS as usize) {
        let submission = &run[0]["args"]["submission"];
        assert!(run.iter().all(|e| &e["args"]["submission"] == submission));
        assert!(
            run.windows(2)
                .all(|w| w[0]["ts"].as_f64() < w[1]["ts"].as_f64()),
            "each repeat has its own stamps, in queue order"
        );
    }
    // The two vector_copy dispatches, and the blit kernels of the buffers' initial uploads and
    // of the readback copy.
    let copies: Vec<_> = dispatches
        .iter()
        .filter(|e| e["name"] == "vector_copy")
        .collect();
    assert_eq!(copies.len(), 2, "{dispatches:#?}");
    assert!(
        dispatches.iter().any(|e| e["name"] == "copy_bytes"),
        "{dispatches:#?}"
    );
    for d in &dispatches {
        assert!(d["dur"].as_f64().is_some_and(|t| t >= 0.0), "{d}");
        assert_eq!(d["tid"], 1, "dispatches are on the compute queue's track");
        assert!(d["args"]["wave_instructions"].as_u64() > Some(0), "{d}");
    }
    assert!(
        copies[0]["ts"].as_f64() <= copies[1]["ts"].as_f64(),
        "in queue order"
    );

    // What holds on every part: 4 lanes store 4 bytes each, in one
    // workgroup of 64 work-items (two wave32 waves on gfx1100, one wave64
    // on the GFX9 parts).
    let wave = c.adapter.get_info().subgroup_min_size;
    for d in &copies {
        let a = &d["args"];
        assert!(a["wave_instructions"].as_u64() > Some(0), "{a:#}");
        assert_eq!(a["global_written_bytes"], 16, "{a:#}");
        assert_eq!(a["workgroups"], 1);
        assert_eq!(a["occupancy"]["waves_per_workgroup"], 64 / wave, "{a:#}");
    }
    // The instruction counts by hand are of the gfx1100 object.
    if target() == "gfx1100" {
        hand_counted_gfx1100_vector_copy(&copies);
    }
    assert!(
        events
            .iter()
            .any(|e| e["ph"] == "C" && e["name"] == "waves per SIMD"),
        "occupancy is a counter track too"
    );
    // Counter tracks draw steps: no sample repeats the one before it on
    // its track (a run of dispatches with the same counters is one step),
    // and each track is back at 0 once its submission's last dispatch ended.
    let mut samples: std::collections::BTreeMap<(u64, &str), Vec<&Value>> = Default::default();
    for e in events.iter().filter(|e| e["ph"] == "C") {
        let track = (
            e["pid"].as_u64().expect("pid"),
            e["name"].as_str().expect("name"),
        );
        samples.entry(track).or_default().push(&e["args"]);
    }
    assert_eq!(samples.len(), 3, "{samples:#?}");
    for (track, values) in &samples {
        assert!(
            values.windows(2).all(|w| w[0] != w[1]),
            "{track:?}: {values:#?}"
        );
        let last = values.last().and_then(|v| v.as_object()).expect("a sample");
        assert!(
            last.values().all(|v| v == 0),
            "{track:?} ends at 0: {values:#?}"
        );
    }

    // The SDMA copy: a slice on the SDMA track between its two barriers,
    // with arrows from the gate barrier to it and from it to the wait.
    let sdma = slices(&events, "sdma");
    assert!(
        sdma.iter()
            .any(|e| e["name"] == "copy 65536 B" && e["tid"] == 2 && e["args"]["bytes"] == 65536),
        "{sdma:#?}"
    );
    let barriers: Vec<_> = slices(&events, "barrier")
        .into_iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    for name in ["barrier: SDMA gate", "barrier: wait for SDMA"] {
        assert!(barriers.contains(&name), "{name}: {barriers:?}");
    }
    let flow_ids = |ph: &str| -> Vec<u64> {
        let mut ids: Vec<u64> = events
            .iter()
            .filter(|e| e["ph"] == ph)
            .filter_map(|e| e["id"].as_u64())
            .collect();
        ids.sort_unstable();
        ids
    };
    assert!(flow_ids("s").len() >= 2, "flows into and out of the copy");
    assert_eq!(flow_ids("s"), flow_ids("f"), "every arrow has both ends");

    // Each submission ends with a barrier slice that waited for its last
    // dispatch: the first doubling submission has one starting no earlier
    // than its second dispatch ends, with an arrow from that dispatch.
    let ts = |e: &Value| e["ts"].as_f64().expect("ts");
    let end_of = |e: &Value| ts(e) + e["dur"].as_f64().expect("dur");
    let ends: Vec<_> = slices(&events, "barrier")
        .into_iter()
        .filter(|e| e["name"] == "barrier: end of submission" && e["tid"] == 1)
        .collect();
    let first_copy = copies[1];
    let submission = &first_copy["args"]["submission"];
    let end = ends
        .iter()
        .find(|e| &e["args"]["submission"] == submission)
        .unwrap_or_else(|| panic!("submission {submission} has an end: {ends:#?}"));
    assert!(
        ts(end) + 0.001 >= end_of(first_copy),
        "{end} after {first_copy}"
    );
    let flows_at = |ph: &str, tid: u64, at: f64| {
        events
            .iter()
            .filter(|e| e["ph"] == ph && e["tid"] == tid)
            .filter(|e| (ts(e) - at).abs() < 0.002)
            .filter_map(|e| e["id"].as_u64())
            .collect::<Vec<_>>()
    };
    let into_end = flows_at("f", 1, ts(end));
    assert!(
        flows_at("s", 1, end_of(first_copy) - 0.001)
            .iter()
            .chain(&flows_at("s", 1, ts(first_copy)))
            .any(|id| into_end.contains(id)),
        "an arrow from the dispatch to the end of its submission"
    );

    // The host callback's barrier, with an arrow to the callback.
    let host_barrier = slices(&events, "barrier")
        .into_iter()
        .find(|e| e["name"] == "barrier: host callback")
        .unwrap_or_else(|| panic!("a host-callback barrier: {barriers:?}"));
    assert_eq!(host_barrier["tid"], 1, "on the compute queue");
    let callback = slices(&events, "host")
        .into_iter()
        .find(|e| e["name"] == "host callback")
        .expect("the host callback's slice");
    assert_eq!(callback["tid"], 13);
    let into_callback = flows_at("f", 13, ts(callback));
    assert!(
        flows_at("s", 1, end_of(host_barrier) - 0.001)
            .iter()
            .chain(&flows_at("s", 1, ts(host_barrier)))
            .any(|id| into_callback.contains(id)),
        "an arrow from the barrier to the callback"
    );

    let host = slices(&events, "host");
    for name in ["submit", "map_async"] {
        assert!(host.iter().any(|e| e["name"] == name), "{name}: {host:#?}");
    }
    let names: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    assert!(names.contains(&"GPU compute queue"), "{names:?}");
    assert!(names.contains(&"host: submit"), "{names:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// gfxsim's counters of the two gfx1100 vector_copy dispatches against a
/// count by hand.
fn hand_counted_gfx1100_vector_copy(copies: &[&&Value]) {
    // vector_copy (kernels/src/vector_copy.cl, gfx1100) over n = 4 in one
    // workgroup of 64 work-items: two wave32 waves. Its code, by class:
    //   s_clause(C) s_load_b32(M) s_load_b32(M) s_waitcnt(C) s_and_b32(S)
    //   s_delay_alu(C) v_mad_u64_u32(V) s_mov_b32(S) v_cmpx_gt_u32(V)
    //   s_cbranch_execz(B) | s_load_b128(M) v_mov_b32(V) s_delay_alu(C)
    //   v_lshlrev_b64(V) s_waitcnt(C) v_add_co_u32(V) s_delay_alu(C)
    //   v_add_co_ci_u32(V) v_add_co_u32(V) v_add_co_ci_u32(V)
    //   global_load_b32(L) s_waitcnt(C) global_store_b32(W) | s_nop(C)
    //   s_sendmsg(C) s_endpgm(C)
    // Wave 0 (lanes 0..3 in range) runs all 26: C 10, M 3, S 2, V 8, B 1,
    // L 1, W 1. Wave 1 (no lane in range) branches from s_cbranch_execz to
    // s_nop: 13, C 6, M 2, S 2, V 2, B 1. Together: 39.
    for d in copies {
        let a = &d["args"];
        assert_eq!(a["wave_instructions"], 39, "{a:#}");
        let i = &a["instructions"];
        for (class, n) in [
            ("control", 16),
            ("smem", 5),
            ("salu", 4),
            ("valu", 10),
            ("branch", 2),
            ("vmem_load", 1),
            ("vmem_store", 1),
            ("vmem_atomic", 0),
            ("lds", 0),
            ("barrier", 0),
            ("wmma", 0),
        ] {
            assert_eq!(i[class], n, "{class}: {i:#}");
        }
        // Scalar loads: 4 + 4 bytes per wave, and wave 0's 16-byte s_load_b128;
        // then wave 0's 4 lanes load and store 4 bytes each.
        assert_eq!(a["global_read_bytes"], 8 + 8 + 16 + 16, "{a:#}");
        assert_eq!(a["global_written_bytes"], 16, "{a:#}");
        assert_eq!(a["workgroups"], 1);
        // 8 VGPRs (one encoding block) are given 24: the wave slots limit.
        let o = &a["occupancy"];
        assert_eq!(o["vgprs"], 24, "{o:#}");
        assert_eq!(o["waves_per_workgroup"], 2, "{o:#}");
        assert_eq!(o["waves_per_simd"], 16, "{o:#}");
        assert_eq!(o["limited_by"], "wave slots", "{o:#}");
    }
}
