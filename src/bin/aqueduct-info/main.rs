//! aqueduct-info: what Aqueduct sees on this machine, like rocminfo or
//! wgpuinfo: the runtime and its device (real /dev/kfd or gfxsim), every
//! agent (name, ISA, simulated or real, CUs, wave size, LDS, limits), every
//! memory pool (segment, fine/coarse, size, granule, host access, which
//! agents may access it) and the queues' properties. `--json` prints the
//! same values as one JSON object for scripts.

mod report;
mod text;

use std::process::ExitCode;

use aqueduct::hsa::{HsaError, Runtime};
use aqueduct::{DeviceChoice, DeviceSelectError, open_device};

const USAGE: &str = "\
usage: aqueduct-info [--json] [--device auto|sim|kfd]

  --json     print one JSON object (runtime, agents, pools, queues) instead of the listing
  --device   which device to open (default: AQUEDUCT_DEVICE, else auto: /dev/kfd if it
             lists a GPU, else gfxsim)
  ROCR_VISIBLE_DEVICES filters and orders the GPUs, as with ROCm.
";

struct Options {
    json: bool,
    device: DeviceChoice,
}

/// Why the command line was refused (printed before the usage).
#[derive(Debug, thiserror::Error)]
enum CliError {
    #[error("--device needs a value: auto, sim or kfd")]
    MissingDevice,
    #[error("unknown argument `{0}`")]
    UnknownArgument(String),
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
}

fn parse_options(argv: &[String]) -> Result<Option<Options>, CliError> {
    let mut opts = Options {
        json: false,
        device: DeviceChoice::from_env()?,
    };
    let mut it = argv.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => opts.json = true,
            "--device" => {
                let v = it.next().ok_or(CliError::MissingDevice)?;
                opts.device = DeviceChoice::parse(v)?;
            }
            "-h" | "--help" => return Ok(None),
            other => return Err(CliError::UnknownArgument(other.to_string())),
        }
    }
    Ok(Some(opts))
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
