//! aqueduct-info: what Aqueduct sees on this machine, like rocminfo or
//! wgpuinfo: the runtime and its device (real /dev/kfd or gfxsim), every
//! agent (name, ISA, simulated or real, CUs, wave size, LDS, limits), every
//! memory pool (segment, fine/coarse, size, granule, host access, which
//! agents may access it) and the queues' properties. `--json` prints the
//! same values as one JSON object for scripts. `--check` runs the hardware
//! check instead (see [`check`]): a fixed list of checks on the device,
//! each compared bit for bit with gfxsim in the same process.

mod check;
mod report;
mod text;

// The corpus table (corpus/cases, included by `check`) takes its input
// generator from `aqueduct_test_support::Rng`, a dev-dependency that a
// binary cannot link: the binary includes that generator's source file and
// answers to the crate name itself.
extern crate self as aqueduct_test_support;
#[path = "../../../crates/test-support/src/rng.rs"]
#[allow(dead_code)] // the corpus uses only part of the generator
mod rng;
pub use rng::Rng;

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use aqueduct::hsa::{HsaError, Runtime};
use aqueduct::{DeviceChoice, DeviceSelectError, open_device};

const USAGE: &str = "\
usage: aqueduct-info [--json] [--device auto|sim|kfd]
       aqueduct-info --check [NAME...] [--json] [--list] [--device auto|sim|kfd]

  --json     print one JSON object (runtime, agents, pools, queues) instead of the listing
  --check    run the hardware check: every check on the device and on gfxsim in this
             process, compared bit for bit; one line per check, then a summary. NAMEs
             keep the checks whose name contains one of them (e.g. `--check kfd fault`).
             With --json, one object (summary, checks) for a bug report. Exit status 1
             if a check fails.
  --list     with --check: print the names of the checks without running them
  --device   which device to open (default: AQUEDUCT_DEVICE, else auto: /dev/kfd if it
             lists a GPU, else gfxsim)
  ROCR_VISIBLE_DEVICES filters and orders the GPUs, as with ROCm.
";

struct Options {
    json: bool,
    device: DeviceChoice,
    /// `--check` and its name filters.
    check: Option<Vec<String>>,
    list: bool,
}

/// Why the command line was refused (printed before the usage).
#[derive(Debug, thiserror::Error)]
enum CliError {
    #[error("--device needs a value: auto, sim or kfd")]
    MissingDevice,
    #[error("unknown argument `{0}`")]
    UnknownArgument(String),
    #[error("--list goes with --check")]
    ListWithoutCheck,
    #[error(transparent)]
    Device(#[from] DeviceSelectError),
}

/// Why the report could not be made.
#[derive(Debug, thiserror::Error)]
enum InfoError {
    #[error(transparent)]
    Device(#[from] DeviceSelectError),
    #[error("runtime init failed: {0}")]
    Runtime(#[source] HsaError),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("opening the device for the check: {0}")]
    CheckSide(#[from] check::side::SideError),
    #[error("no check name contains any of {filters:?} (`--check --list` lists them)")]
    NoCheckMatches { filters: Vec<String> },
}

fn parse_options(argv: &[String]) -> Result<Option<Options>, CliError> {
    let mut opts = Options {
        json: false,
        device: DeviceChoice::from_env()?,
        check: None,
        list: false,
    };
    let mut it = argv.iter().peekable();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => opts.json = true,
            "--list" => opts.list = true,
            "--check" => {
                let mut filters = Vec::new();
                while let Some(name) = it.next_if(|a| !a.starts_with('-')) {
                    filters.push(name.clone());
                }
                opts.check = Some(filters);
            }
            "--device" => {
                let v = it.next().ok_or(CliError::MissingDevice)?;
                opts.device = DeviceChoice::parse(v)?;
            }
            "-h" | "--help" => return Ok(None),
            other => return Err(CliError::UnknownArgument(other.to_string())),
        }
    }
    if opts.list && opts.check.is_none() {
        return Err(CliError::ListWithoutCheck);
    }
    Ok(Some(opts))
}

/// `--check`: runs the selected checks, printing each line as it completes
/// (or the JSON report at the end); Ok(false) when a check failed.
fn run_check(opts: &Options, filters: &[String]) -> Result<bool, InfoError> {
    let checks = check::selected(filters);
    if checks.is_empty() {
        return Err(InfoError::NoCheckMatches {
            filters: filters.to_vec(),
        });
    }
    if opts.list {
        for c in &checks {
            println!("{}", c.name);
        }
        return Ok(true);
    }
    let start = Instant::now();
    let selected = check::Side::open(open_device(opts.device)?)?;
    let reference = check::Reference::for_selected(&selected)?;
    let records = check::run_all(&checks, &selected, &reference, |record| {
        if !opts.json {
            println!("{}", check::render::line(record));
            let _ = std::io::stdout().flush();
        }
    });
    let summary = check::render::Summary::new(
        &selected,
        &reference,
        &records,
        start.elapsed().as_secs_f64(),
    );
    let passed = summary.failed == 0;
    if opts.json {
        let report = check::render::CheckReport {
            summary,
            checks: records,
        };
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", check::render::summary(&summary));
    }
    Ok(passed)
}

fn run(opts: &Options) -> Result<String, InfoError> {
    let device = open_device(opts.device)?;
    let runtime = Runtime::new(device).map_err(InfoError::Runtime)?;
    let report = report::collect(&runtime);
    if opts.json {
        Ok(serde_json::to_string_pretty(&report)?)
    } else {
        Ok(text::render(&report))
    }
}

fn main() -> ExitCode {
    // Logs to stderr, filtered by RUST_LOG (e.g. `RUST_LOG=aqueduct=trace`
    // shows every submission and dispatch); errors only when it is unset.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .try_init();
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let opts = match parse_options(&argv) {
        Ok(Some(opts)) => opts,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("aqueduct-info: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Some(filters) = &opts.check {
        return match run_check(&opts, filters) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("aqueduct-info: {e}");
                ExitCode::FAILURE
            }
        };
    }
    match run(&opts) {
        Ok(out) => {
            println!("{}", out.trim_end());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("aqueduct-info: {e}");
            ExitCode::FAILURE
        }
    }
}
