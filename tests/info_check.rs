//! `aqueduct-info --check` as CI runs it: on gfxsim, where both sides of
//! the comparison are gfxsim of the part `AQUEDUCT_SIM_ISA` selects (CI
//! runs this file on gfx1100, gfx942 and gfx90a). The list has at least 60 checks from every
//! group, a run of all of them passes, every line and the summary print,
//! and `--json` parses into the summary and one record per check.

use std::process::{Command, Output};

use serde_json::Value;

use aqueduct_test_harness::facade::target;

fn info(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_aqueduct-info"))
        .args(args)
        .env("AQUEDUCT_DEVICE", "sim")
        .env_remove("ROCR_VISIBLE_DEVICES")
        .output()
        .expect("aqueduct-info runs")
}

fn stdout(args: &[&str]) -> String {
    let out = info(args);
    assert!(
        out.status.success(),
        "aqueduct-info {args:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

fn list(filters: &[&str]) -> Vec<String> {
    let mut args = vec!["--check"];
    args.extend(filters);
    args.push("--list");
    stdout(&args).lines().map(str::to_string).collect()
}

#[test]
fn the_list_has_every_group_and_at_least_60_checks() {
    let names = list(&[]);
    assert!(names.len() >= 60, "{} checks: {names:?}", names.len());
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "duplicate names");
    for group in ["kfd.", "corpus.", "facade.", "timestamps.", "fault."] {
        assert!(
            names.iter().any(|n| n.starts_with(group)),
            "no {group} check"
        );
    }
    // Every corpus kernel at -O0 and -O3 (or its assembly build).
    assert!(names.iter().filter(|n| n.ends_with(".o0")).count() >= 50);
    assert_eq!(
        names.iter().filter(|n| n.ends_with(".o0")).count(),
        names.iter().filter(|n| n.ends_with(".o3")).count()
    );
    // A filter keeps the names containing it.
    let kfd = list(&["kfd."]);
    assert!(!kfd.is_empty() && kfd.iter().all(|n| n.starts_with("kfd.")));
}

/// Whether check `name` is one whose code object the corpus does not build
/// for [`target`] (gfx11-only kernels on the GFX9 parts): the one kind of
/// check that may be skipped.
fn not_built_here(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("corpus.") else {
        return false;
    };
    let (kernel, variant) = rest.rsplit_once('.').expect("corpus.NAME.VARIANT");
    let file = match variant {
        "o0" => format!("{kernel}.O0.co"),
        "o3" => format!("{kernel}.O3.co"),
        _ => format!("{kernel}.co"),
    };
    !aqueduct_test_support::repo::root()
        .join("corpus")
        .join(target())
        .join(file)
        .is_file()
}

#[test]
fn the_check_passes_on_gfxsim_and_json_reports_it() {
    // All of them: a few seconds on gfxsim, in a debug build too.
    let mut args = vec!["--check"];
    let expected = list(&[]);
    let skipped: Vec<&String> = expected.iter().filter(|n| not_built_here(n)).collect();
    assert_eq!(skipped.is_empty(), target() == "gfx1100", "{skipped:?}");

    let text = stdout(&args);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("PASS") || l.starts_with("FAIL") || l.starts_with("SKIP"))
        .collect();
    assert_eq!(lines.len(), expected.len(), "{text}");
    assert!(!text.contains("\nFAIL"), "{text}");
    for line in &lines {
        let name = line.split_whitespace().nth(1).expect("a check name");
        if not_built_here(name) {
            assert!(line.starts_with("SKIP"), "{line}");
            assert!(line.ends_with("is built for gfx1100 only"), "{line}");
        } else {
            assert!(line.starts_with("PASS"), "{line}");
        }
    }
    for needle in [
        "GPU:",
        &format!("amdgcn-amd-amdhsa--{}", target()),
        "KFD version:    1.",
        "Kernel release:",
        &format!("Compared with:  gfxsim {}", target()),
        "0 failed",
    ] {
        assert!(text.contains(needle), "no `{needle}` in:\n{text}");
    }

    args.push("--json");
    let json: Value = serde_json::from_str(&stdout(&args)).expect("valid JSON");
    let summary = &json["summary"];
    assert_eq!(summary["device"], "gfxsim");
    assert_eq!(summary["aqueduct_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(summary["isa"], format!("amdgcn-amd-amdhsa--{}", target()));
    assert_eq!(summary["failed"], 0);
    assert_eq!(summary["checks"], expected.len());
    assert_eq!(summary["passed"], expected.len() - skipped.len());
    assert!(summary["kfd_version"].as_str().unwrap().starts_with("1."));
    assert!(!summary["kernel_release"].as_str().unwrap().is_empty());
    let checks = json["checks"].as_array().unwrap();
    let names: Vec<&str> = checks.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, expected);
    for c in checks {
        let skip = not_built_here(c["name"].as_str().unwrap());
        assert_eq!(c["status"], if skip { "SKIP" } else { "PASS" }, "{c}");
        let group = c["group"].as_str().unwrap();
        assert!(
            c["name"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{group}."))
        );
        assert!(c["ms"].as_f64().unwrap() >= 0.0);
        assert!(c["detail"].is_string());
    }
    let fault = checks
        .iter()
        .find(|c| c["name"] == "fault.memory_violation")
        .unwrap();
    let detail = fault["detail"].as_str().unwrap();
    assert!(
        detail.contains("oob_write") && detail.contains("0x1000"),
        "{detail}"
    );
}

#[test]
fn bad_check_arguments_are_refused() {
    let out = info(&["--list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--list goes with --check"));
    let out = info(&["--check", "no-such-check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no check name contains any of [\"no-such-check\"]"),
        "{err}"
    );
}
