//! `AQUEDUCT_TRACE=path.json`: the first instance starts a trace that the
//! device's drop completes, as `AQUEDUCT_TRACE=t.json cargo run --example
//! hello_compute` does (its own process, so the variable is read here
//! first).

use aqueduct_test_harness::facade::*;
use serde_json::Value;

#[test]
fn aqueduct_trace_writes_one_slice_per_dispatch() {
    let dir = std::env::temp_dir().join(format!("aqueduct-trace-env-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("t.json");
    // SAFETY: this test binary's only test sets the variable before any
    // thread of it reads the environment.
    unsafe { std::env::set_var(aqueduct::trace::TRACE_ENV, &path) };
    {
        let c = ctx();
        let (work, dst) = doubling_work(&c);
        c.queue.submit([work]);
        assert_eq!(read_words(&c, &dst), [2, 4, 6, 8]);
    }
    let text = std::fs::read_to_string(&path).expect("the device's drop wrote the trace");
    let json: Value = serde_json::from_str(&text).expect("the trace is JSON");
    let names: Vec<&str> = json["traceEvents"]
        .as_array()
        .expect("traceEvents")
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "dispatch")
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(
        names.iter().filter(|n| **n == "vector_copy").count(),
        2,
        "{names:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
