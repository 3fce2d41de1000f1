//! aqueduct-info, run as a user runs it (the built binary, on gfxsim):
//! the JSON names the runtime, the simulated gfx1100 agent with the
//! properties the simulator's topology gives it, its three pools with their
//! grain, host access and per-agent access, and the queue bounds; the text
//! listing shows the same values; bad arguments fail with usage; with
//! `AQUEDUCT_SIM_PART` / `AQUEDUCT_SIM_ISA` it shows the simulated MI300X
//! and MI210.

use std::path::Path;
use std::process::Command;

use aqueduct::hsa::Runtime;
use aqueduct::hsa::queue::aql_queue::{MAX_QUEUE_PACKETS, MIN_QUEUE_PACKETS};
use serde_json::Value;

/// The simulated VRAM of every device in these tests, MiB.
const VRAM_MB: u64 = 4096;

fn info(args: &[&str]) -> std::process::Output {
    info_with(args, &[])
}

/// aqueduct-info on gfxsim with the part variables unset unless `vars`
/// sets them.
fn info_with(args: &[&str], vars: &[(&str, &str)]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_aqueduct-info"));
    command
        .env_remove("AQUEDUCT_SIM_PART")
        .env_remove("AQUEDUCT_SIM_ISA")
        .env_remove("AQUEDUCT_SIM_GPUS")
        .envs(vars.iter().copied());
    command
        .args(args)
        .env("AQUEDUCT_DEVICE", "sim")
        // Fixed VRAM: by default gfxsim sizes it from the host's available
        // memory, which moves between this process and the child.
        .env("AQUEDUCT_SIM_VRAM_MB", VRAM_MB.to_string())
        .env_remove("ROCR_VISIBLE_DEVICES")
        .output()
        .expect("aqueduct-info runs")
}

fn stdout(args: &[&str]) -> String {
    stdout_with(args, &[])
}

fn stdout_with(args: &[&str], vars: &[(&str, &str)]) -> String {
    let out = info_with(args, vars);
    assert!(
        out.status.success(),
        "aqueduct-info {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn json_reports_runtime_agents_pools_and_queues() {
    let json: Value = serde_json::from_str(&stdout(&["--json"])).expect("valid JSON");
    // The same device, opened in-process, is the reference for every value:
    // the part the child gets with the part variables unset.
    let sim = aqueduct::gfxsim::SimDevice::new(aqueduct::gfxsim::SimConfig {
        part: aqueduct::gfxsim::SimPart::Rx7900Xtx,
        vram_size: VRAM_MB << 20,
        ..Default::default()
    })
    .unwrap();
    let runtime = Runtime::new(sim).unwrap();

    let rt = &json["runtime"];
    assert_eq!(rt["name"], "aqueduct");
    assert_eq!(rt["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(rt["backend"], "gfxsim");
    assert_eq!(rt["simulated"], true);
    let (major, minor) = runtime.kfd_version();
    assert_eq!(rt["kfd_version"], format!("{major}.{minor}"));
    assert_eq!(rt["gpu_count"], runtime.gpu_agents().count());
    assert_eq!(rt["cpu_count"], runtime.cpu_agents().count());
    assert!(rt["aperture_size"].as_u64().unwrap() > 0);

    let agents = json["agents"].as_array().unwrap();
    assert_eq!(agents.len(), runtime.agents().len());
    for (a, want) in agents.iter().zip(runtime.agents()) {
        assert_eq!(a["name"], want.name.as_str());
        assert_eq!(a["node_id"], want.node_id);
        assert_eq!(a["uuid"], want.uuid.as_str());
    }

    let gpu = agents
        .iter()
        .find(|a| a["device_type"] == "gpu")
        .expect("a GPU agent");
    let want = runtime.gpu_agent(0).unwrap();
    assert_eq!(gpu["name"], "gfx1100");
    assert_eq!(gpu["isa"], "amdgcn-amd-amdhsa--gfx1100");
    assert_eq!(gpu["simulated"], true);
    assert_eq!(gpu["wavefront_size"], 32);
    assert_eq!(gpu["compute_units"], want.compute_unit_count);
    assert!(want.compute_unit_count > 0);
    assert_eq!(gpu["lds_bytes_per_workgroup"], 65536);
    assert_eq!(gpu["max_workgroup_size"], 1024);
    assert_eq!(gpu["local_memory_bytes"], want.local_memory_size);
    assert_eq!(gpu["gpu_ordinal"], 0);

    let queues = &gpu["queues"];
    assert_eq!(queues["min_packets"], MIN_QUEUE_PACKETS);
    assert_eq!(queues["max_packets"], MAX_QUEUE_PACKETS);
    assert_eq!(queues["packet_bytes"], 64);
    let cwsr = want.cwsr_sizes.expect("GPU cwsr sizes");
    assert_eq!(queues["cwsr_bytes"], cwsr.cwsr_size);
    assert_eq!(queues["eop_buffer_bytes"], cwsr.eop_buffer_size);

    let pools = gpu["pools"].as_array().unwrap();
    let kinds: Vec<&str> = pools.iter().map(|p| p["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["coarse-device", "fine-system", "kernarg"]);
    for (p, hsa) in pools.iter().zip(runtime.pools(want).unwrap()) {
        let info = hsa.info();
        assert_eq!(p["size_bytes"], info.size);
        assert_eq!(p["alloc_granule"], 4096);
        assert_eq!(p["fine_grained"], info.fine_grained);
        assert_eq!(p["host_accessible"], info.host_accessible);
        assert_eq!(p["segment"], "global");
        let access = p["access"].as_array().unwrap();
        assert_eq!(access.len(), runtime.agents().len());
        for (acc, agent) in access.iter().zip(runtime.agents()) {
            let expected = if agent.is_gpu() {
                if agent.gpu_id == want.gpu_id {
                    "allowed-by-default"
                } else {
                    "disallowed-by-default"
                }
            } else if info.fine_grained {
                "allowed-by-default"
            } else {
                "disallowed-by-default"
            };
            assert_eq!(acc["access"], expected, "{} on {}", p["kind"], agent.name);
        }
    }
    assert_eq!(pools[0]["fine_grained"], false);
    assert_eq!(pools[0]["host_accessible"], false);
    assert_eq!(pools[1]["fine_grained"], true);
    assert_eq!(pools[2]["kernarg"], true);
    // CPU agents own no pools here (the host reaches the GPUs' fine pools).
    for cpu in agents.iter().filter(|a| a["device_type"] == "cpu") {
        assert!(cpu["pools"].as_array().unwrap().is_empty());
        assert!(cpu["queues"].is_null());
    }
}

#[test]
fn text_listing_shows_the_same_values() {
    let text = stdout(&[]);
    // Keys and values are separated by padding; compare with single spaces.
    let flat: String = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n");
    let json: Value = serde_json::from_str(&stdout(&["--json"])).unwrap();
    assert!(text.starts_with(&format!("Runtime: aqueduct {}", env!("CARGO_PKG_VERSION"))));
    assert!(text.contains("gfxsim (simulated GPU)"), "{text}");
    let gpu = json["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["device_type"] == "gpu")
        .unwrap();
    for needle in [
        "Agent 0: gfx1100".to_string(),
        "amdgcn-amd-amdhsa--gfx1100".to_string(),
        format!("Compute units: {}", gpu["compute_units"]),
        "Wavefront size: 32".to_string(),
        "LDS per workgroup: 65536 (64 KiB)".to_string(),
        "Access gfx1100 (node 1): allowed-by-default".to_string(),
        "Pool 0: coarse-device".to_string(),
        "Pool 1: fine-system".to_string(),
        "Pool 2: kernarg".to_string(),
        format!("Size (packets): {MIN_QUEUE_PACKETS} .. {MAX_QUEUE_PACKETS}"),
    ] {
        assert!(flat.contains(&needle), "missing `{needle}` in:\n{text}");
    }
}

#[test]
fn bad_arguments_fail_with_usage() {
    let out = info(&["--frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown argument `--frobnicate`"), "{err}");
    assert!(err.contains("usage: aqueduct-info"), "{err}");
    let out = info(&["--device", "cuda"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cuda"));
    assert!(stdout(&["--help"]).starts_with("usage: aqueduct-info"));
}

#[test]
fn a_missing_real_gpu_is_a_clear_error() {
    if Path::new("/dev/kfd").exists() {
        eprintln!("/dev/kfd exists: nothing to check");
        return;
    }
    let out = info(&["--device", "kfd"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("aqueduct-info: AQUEDUCT_DEVICE=kfd but the real device is unavailable"),
        "{err}"
    );
}

#[test]
fn the_simulated_part_shows_its_isa_cus_xccs_and_wave_size() {
    let gpu_of = |vars: &[(&str, &str)]| -> Value {
        let json: Value =
            serde_json::from_str(&stdout_with(&["--json"], vars)).expect("valid JSON");
        json["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["device_type"] == "gpu")
            .expect("a GPU agent")
            .clone()
    };
    let mi300x = gpu_of(&[("AQUEDUCT_SIM_PART", "mi300x")]);
    assert_eq!(mi300x["name"], "gfx942");
    assert_eq!(mi300x["isa"], "amdgcn-amd-amdhsa--gfx942");
    assert_eq!(mi300x["compute_units"], 304);
    assert_eq!(mi300x["xccs"], 8);
    assert_eq!(mi300x["wavefront_size"], 64);
    assert_eq!(mi300x["max_waves_per_cu"], 32);
    let mi210 = gpu_of(&[("AQUEDUCT_SIM_ISA", "gfx90a")]);
    assert_eq!(mi210["name"], "gfx90a");
    assert_eq!(mi210["product_name"], "aldebaran");
    assert_eq!(mi210["compute_units"], 104);
    assert_eq!(mi210["xccs"], 1);
    assert_eq!(mi210["wavefront_size"], 64);
    let xtx = gpu_of(&[]);
    assert_eq!(
        (xtx["name"].as_str(), xtx["xccs"].as_u64()),
        (Some("gfx1100"), Some(1))
    );

    let text = stdout_with(&[], &[("AQUEDUCT_SIM_PART", "mi300x")]);
    for want in [
        "Agent 0: gfx942",
        "Compute units:                  304",
        "XCCs:                           8",
    ] {
        assert!(text.contains(want), "{want:?} in:\n{text}");
    }
    // A value that selects no part says so and keeps the default part.
    let out = info_with(&["--json"], &[("AQUEDUCT_SIM_PART", "mi100")]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("AQUEDUCT_SIM_PART=\"mi100\" names no simulated part"),
        "{err}"
    );
}

#[test]
fn aqueduct_sim_gpus_sets_the_number_of_simulated_gpus() {
    let gpus = |vars: &[(&str, &str)]| -> Vec<String> {
        let json: Value =
            serde_json::from_str(&stdout_with(&["--json"], vars)).expect("valid JSON");
        json["agents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|a| a["device_type"] == "gpu")
            .map(|a| a["name"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(gpus(&[]), ["gfx1100"]);
    assert_eq!(
        gpus(&[("AQUEDUCT_SIM_GPUS", "3"), ("AQUEDUCT_SIM_PART", "mi300x")]),
        ["gfx942", "gfx942", "gfx942"]
    );
    // Not a positive integer: one GPU, as when unset.
    assert_eq!(gpus(&[("AQUEDUCT_SIM_GPUS", "0")]), ["gfx1100"]);
}
