//! wgpu-peer: the wgpu 30 / Mesa lavapipe side of Aqueduct's benchmarks.
//!
//! Runs the named measurements on lavapipe (a CPU Vulkan driver, the same
//! machine gfxsim runs on) and prints one JSON object per line on stdout, for
//! benches/peer/mod.rs to parse. Errors go to stderr, exit status 2 (bad
//! arguments or a failed measurement) or 3 (no lavapipe adapter).
//!
//! Usage: wgpu-peer MEASUREMENT [--key value]... [MEASUREMENT [--key value]...]
//!   info
//!   saxpy          --n 16777216 --runs 3
//!   encode-submit  --dispatches 10000 --runs 5
//!   distinct       --dispatches 4096 --runs 5
//!   workgroups     --kernel tiny|zero-init --groups 65535 --runs 3
//!   round-trip     --samples 500
//!   readback       --bytes 1048576 --samples 200
//!   pipelines      --count 60
//!   end-to-end     --runs 5 [--only hello_compute|saxpy_1m|...]
//!                  (whole programs on aqueduct-wgpu and on lavapipe)
//!   compute        --runs 5 --quick 0 [--only transcendental|matmul|nbody]
//!                  (compute-bound kernels on both sides)

mod compile_sources;
mod compute;
mod distinct;
mod encode_submit;
mod end_to_end;
mod gpu;
mod pipelines;
mod programs;
mod readback;
mod round_trip;
mod saxpy;
mod stats;
mod workgroups;

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::str::FromStr;

/// One measurement and its `--key value` options.
struct Request {
    name: String,
    options: BTreeMap<String, String>,
}

impl Request {
    /// The option `key` parsed as `T`, or `default` when absent.
    fn get<T: FromStr>(&self, key: &str, default: T) -> Result<T, String> {
        match self.options.get(key) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("{}: --{key} {v:?} is not a valid number", self.name)),
        }
    }

    /// Fails on options this measurement does not know (typos would
    /// otherwise silently measure the default).
    fn only(&self, known: &[&str]) -> Result<(), String> {
        match self.options.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(format!(
                "{}: unknown option --{k} (known: {})",
                self.name,
                known
                    .iter()
                    .map(|k| format!("--{k}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            None => Ok(()),
        }
    }
}

const MEASUREMENTS: &[&str] = &[
    "info",
    "saxpy",
    "encode-submit",
    "distinct",
    "workgroups",
    "round-trip",
    "readback",
    "pipelines",
    "end-to-end",
    "compute",
];

fn parse(args: &[String]) -> Result<Vec<Request>, String> {
    let mut requests: Vec<Request> = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if let Some(key) = arg.strip_prefix("--") {
            let request = requests
                .last_mut()
                .ok_or_else(|| format!("option --{key} before any measurement"))?;
            let value = it
                .next()
                .ok_or_else(|| format!("option --{key} needs a value"))?;
            request.options.insert(key.to_string(), value.clone());
        } else if MEASUREMENTS.contains(&arg.as_str()) {
            requests.push(Request {
                name: arg.clone(),
                options: BTreeMap::new(),
            });
        } else {
            return Err(format!(
                "unknown measurement {arg:?} (known: {})",
                MEASUREMENTS.join(", ")
            ));
        }
    }
    if requests.is_empty() {
        return Err(format!(
            "no measurement given (known: {})",
            MEASUREMENTS.join(", ")
        ));
    }
    Ok(requests)
}

fn measure(gpu: &gpu::Gpu, r: &Request) -> Result<serde_json::Value, String> {
    match r.name.as_str() {
        "info" => {
            r.only(&[])?;
            let mut v = gpu.describe();
            v["measurement"] = "info".into();
            Ok(v)
        }
        "saxpy" => {
            r.only(&["n", "runs"])?;
            saxpy::run(gpu, r.get("n", 16 << 20)?, r.get("runs", 3)?)
        }
        "encode-submit" => {
            r.only(&["dispatches", "runs"])?;
            encode_submit::run(gpu, r.get("dispatches", 10_000)?, r.get("runs", 5)?)
        }
        "distinct" => {
            r.only(&["dispatches", "runs"])?;
            distinct::run(gpu, r.get("dispatches", 4096)?, r.get("runs", 5)?)
        }
        "workgroups" => {
            r.only(&["kernel", "groups", "runs"])?;
            let kernel = r.options.get("kernel").map_or("tiny", String::as_str);
            workgroups::run(gpu, kernel, r.get("groups", 65535)?, r.get("runs", 3)?)
        }
        "round-trip" => {
            r.only(&["samples"])?;
            round_trip::run(gpu, r.get("samples", 500)?)
        }
        "readback" => {
            r.only(&["bytes", "samples"])?;
            readback::run(gpu, r.get("bytes", 1 << 20)?, r.get("samples", 200)?)
        }
        "pipelines" => {
            r.only(&["count"])?;
            pipelines::run(gpu, r.get("count", 60)?)
        }
        "end-to-end" => {
            r.only(&["runs", "only"])?;
            let only = r.options.get("only").map(String::as_str);
            end_to_end::run(gpu, r.get("runs", 5)?, only)
        }
        "compute" => {
            r.only(&["runs", "quick", "only"])?;
            let only = r.options.get("only").map(String::as_str);
            compute::run(gpu, r.get("runs", 5)?, r.get("quick", 0u32)? != 0, only)
        }
        other => Err(format!("unknown measurement {other:?}")),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let requests = match parse(&args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("wgpu-peer: {e}");
            return ExitCode::from(2);
        }
    };
    // Whole-program runs start from empty shader caches on both sides; the
    // directories are set before any thread (lavapipe's) exists.
    let _caches = if requests.iter().any(|r| r.name == "end-to-end") {
        // SAFETY: no thread but this one exists yet.
        match unsafe { end_to_end::fresh_caches() } {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("wgpu-peer: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        None
    };
    let gpu = match gpu::Gpu::open() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("wgpu-peer: {e}");
            return ExitCode::from(3);
        }
    };
    for r in &requests {
        match measure(&gpu, r) {
            Ok(v) => println!("{v}"),
            Err(e) => {
                eprintln!("wgpu-peer: {}: {e}", r.name);
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_measurements_and_options() {
        let r = parse(&args("saxpy --n 1024 --runs 2 round-trip")).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].get("n", 0u32).unwrap(), 1024);
        assert_eq!(r[0].get("runs", 0usize).unwrap(), 2);
        assert_eq!(r[1].get("samples", 500usize).unwrap(), 500);
        assert!(r[0].only(&["n", "runs"]).is_ok());
        assert!(r[0].only(&["n"]).is_err());
    }

    #[test]
    fn rejects_bad_input() {
        assert!(parse(&args("")).is_err());
        assert!(parse(&args("--n 5")).is_err());
        assert!(parse(&args("fft")).is_err());
        assert!(parse(&args("saxpy --n")).is_err());
        let r = parse(&args("saxpy --n many")).unwrap();
        assert!(r[0].get("n", 0u32).is_err());
    }
}
