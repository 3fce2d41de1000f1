//! aqueduct-run: run one kernel of a code object on the default device.
//!
//! Like iree-run-module for IREE: for people who have a code object (built
//! by clang, hipcc or aqueduct-shaderc) and want to run one kernel without
//! writing a host program. Arguments are matched against the kernel's
//! metadata by name or position; every mismatch (type, size, missing or
//! unknown argument) is a clear error before anything is dispatched.

mod debug_line;
mod demangle;
mod device;
mod disasm;
mod error;
mod fault_location;
mod kernel_name;
mod lds;
mod profile;
mod sanitize;
mod spec;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use aqueduct::DeviceChoice;
use aqueduct::hsa::code_object::{
    ArgRef, DispatchShape, KernargBuilder, KernelArg, KernelInfo, ValueKind,
};
use aqueduct::hsa::{Allocation, PoolKind, Runtime, WaitCondition, WaitHint};
use device::RunDevice;
use error::{CliError, RunError};
use fault_location::Entries;
use lds::LocalRequest;
use spec::{ArgKey, ScalarType, ValueSpec, parse_arg, parse_dims, parse_size};

const USAGE: &str = "\
usage: aqueduct-run CODE_OBJECT --kernel NAME --grid X[,Y,Z] --workgroup X[,Y,Z] [--arg NAME_OR_INDEX=VALUE]...
                    [--dynamic-lds BYTES] [--force] [--device auto|sim|kfd] [--gpu N] [--repeat N]
                    [--timeout SECONDS] [--profile] [--sanitize TOOLS]
       aqueduct-run CODE_OBJECT --list
       aqueduct-run CODE_OBJECT --disasm

  CODE_OBJECT   an AMDGPU ELF code object or a (compressed) clang offload bundle
  --kernel      the kernel's symbol; a C++ (HIP) kernel also by its demangled signature, or by
                its plain function name when no other kernel has it
  --grid        grid size in work-items per dimension (as in an AQL packet)
  --workgroup   workgroup size per dimension
  --arg         a kernel argument, by metadata name or by position among the explicit arguments:
                  scalars      u32:7  i32:-1  u64:0x10  f32:1.5  f64:2  (u8/i8/u16/i16/i64 too)
                  input buffer @file.bin | zeros:4096 | iota-u32:1024 | f32:1,2,3
                  output       out:FILE:BYTES   (zero-filled, written to FILE after the run)
                  in and out   inout:FILE       (read from FILE, written back to it after the run)
                  __local ptr  local:BYTES      (LDS of that size, after the kernel's static LDS)
                sizes accept K/M/G suffixes (zeros:64K); a scalar's type must match the argument's
                declared type (OpenCL metadata); a WGSL NAME_size argument left out is the size in
                bytes of the buffer bound to NAME
  --dynamic-lds BYTES  LDS for HIP's extern __shared__ arrays (hipLaunchKernelGGL's sharedMem)
  --force       use a scalar whose type disagrees with the declared one as its bytes
  --list        print the kernels and their arguments, then exit
  --disasm      print gfxsim's decoding of every kernel in llvm-objdump's layout (no device needed),
                to diff against llvm-objdump-19 -d --triple=amdgcn-amd-amdhsa --mcpu=gfx1100
  --repeat N    dispatch N times and report the fastest and the mean
  --timeout S   how long to wait for the kernel (default 60); on gfxsim it also raises the
                per-dispatch watchdog (AQUEDUCT_SIM_DISPATCH_TIMEOUT_MS) to S
  --profile     print a table of each run's GPU time and, on gfxsim, its counters: wave
                instructions by class, global-memory bytes read and written, waves per SIMD
                and what limits them
  --sanitize T  run on gfxsim under its sanitizer: T is a comma list of memcheck, racecheck,
                initcheck, synccheck, or all, and racecheck-global (races between workgroups
                on global memory; not in all) (as AQUEDUCT_SIM_SANITIZE); each finding is printed
                as `sanitizer TOOL: kernel NAME+0xOFFSET: ...`, and the exit status is 3 when
                anything was found
";

struct Options {
    code_object: PathBuf,
    kernel: Option<String>,
    grid: Option<([u32; 3], u32)>,
    workgroup: Option<([u32; 3], u32)>,
    args: Vec<(ArgKey, ValueSpec)>,
    /// HIP's `extern __shared__` bytes.
    dynamic_lds: u64,
    /// Scalars whose type disagrees with the metadata are used as given.
    force: bool,
    device: DeviceChoice,
    gpu: usize,
    repeat: u32,
    /// `None` waits for the kernel without a limit.
    timeout: Option<Duration>,
    list: bool,
    disasm: bool,
    profile: bool,
    /// `--sanitize`: the sanitizer tools gfxsim runs.
    #[cfg(feature = "sim")]
    sanitize: Option<sanitize::SanitizerConfig>,
}

/// The options of `argv`; `Ok(None)` for `--help`.
fn parse_options(argv: &[String]) -> Result<Option<Options>, CliError> {
    let mut opts = Options {
        code_object: PathBuf::new(),
        kernel: None,
        grid: None,
        workgroup: None,
        args: Vec::new(),
        dynamic_lds: 0,
        force: false,
        device: DeviceChoice::Auto,
        gpu: 0,
        repeat: 1,
        timeout: Some(Duration::from_secs(60)),
        list: false,
        disasm: false,
        profile: false,
        #[cfg(feature = "sim")]
        sanitize: None,
    };
    let mut device_flag = None;
    let mut positional = Vec::new();
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") && f != "--arg" => (f, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = |name: &'static str| -> Result<String, CliError> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or(CliError::MissingValue(name))
        };
        match flag {
            "--kernel" | "-k" => opts.kernel = Some(value("--kernel")?),
            "--grid" | "-g" => opts.grid = Some(parse_dims(&value("--grid")?, "--grid")?),
            "--workgroup" | "-w" => {
                opts.workgroup = Some(parse_dims(&value("--workgroup")?, "--workgroup")?)
            }
            "--arg" | "-a" => opts.args.push(parse_arg(&value("--arg")?)?),
            "--device" => {
                let v = value("--device")?;
                device_flag =
                    Some(DeviceChoice::parse(&v).map_err(|_| CliError::BadDevice(v.clone()))?);
            }
            "--gpu" => opts.gpu = value("--gpu")?.parse().map_err(|_| CliError::BadGpu)?,
            "--repeat" => {
                opts.repeat = value("--repeat")?
                    .parse()
                    .map_err(|_| CliError::BadRepeat)?;
                if opts.repeat == 0 {
                    return Err(CliError::ZeroRepeat);
                }
            }
            "--timeout" => {
                let s: f64 = value("--timeout")?
                    .parse()
                    .map_err(|_| CliError::BadTimeout)?;
                if !(s > 0.0 && s.is_finite()) {
                    return Err(CliError::NonPositiveTimeout);
                }
                opts.timeout = timeout_from_secs(s);
            }
            "--dynamic-lds" => {
                opts.dynamic_lds = parse_size(&value("--dynamic-lds")?, "LDS size")
                    .map_err(CliError::BadDynamicLds)?;
            }
            "--force" => opts.force = true,
            "--list" => opts.list = true,
            "--disasm" => opts.disasm = true,
            "--profile" => opts.profile = true,
            "--sanitize" => {
                let list = value("--sanitize")?;
                #[cfg(feature = "sim")]
                {
                    opts.sanitize = Some(sanitize::parse(&list)?);
                }
                #[cfg(not(feature = "sim"))]
                return Err(CliError::SanitizeWithoutSim(list));
            }
            "--help" | "-h" => return Ok(None),
            f if f.starts_with('-') && f.len() > 1 => {
                return Err(CliError::UnknownOption(f.to_string()));
            }
            _ => positional.push(a.clone()),
        }
    }
    // The flag wins over the environment, which is only read without it.
    opts.device = match device_flag {
        Some(choice) => choice,
        None => DeviceChoice::from_env()?,
    };
    // The sanitizer is gfxsim's: `auto` picks it, the real device has none.
    #[cfg(feature = "sim")]
    if opts.sanitize.is_some() {
        opts.device = match opts.device {
            DeviceChoice::Kfd => return Err(CliError::SanitizeOnKfd),
            _ => DeviceChoice::Sim,
        };
    }
    match positional.as_slice() {
        [one] => opts.code_object = PathBuf::from(one),
        [] => return Err(CliError::MissingCodeObject),
        more => return Err(CliError::TooManyCodeObjects(more.to_vec())),
    }
    Ok(Some(opts))
}

/// The wait limit for a positive, finite `--timeout` of `seconds`: a limit
/// past what `Duration` or the monotonic clock can hold never passes, so it
/// is no limit.
fn timeout_from_secs(seconds: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|&t| Instant::now().checked_add(t).is_some())
}

/// A buffer argument: its memory and, for outputs, where it goes.
struct BufferArg {
    allocation: Allocation,
    output: Option<(PathBuf, u64)>,
}

fn describe(arg: &KernelArg) -> String {
    let name = arg.name.as_deref().unwrap_or("<unnamed>");
    match &arg.type_name {
        Some(t) => format!("{name}: {t} ({:?}, {} bytes)", arg.value_kind, arg.size),
        None => format!("{name}: {:?}, {} bytes", arg.value_kind, arg.size),
    }
}

fn explicit_args(info: &KernelInfo) -> Vec<&KernelArg> {
    info.args
        .iter()
        .filter(|a| !a.value_kind.is_hidden())
        .collect()
}

fn list_kernels(kernels: &[KernelInfo]) {
    for k in kernels {
        println!("{}", kernel_name::display_name(k));
        for (i, a) in explicit_args(k).iter().enumerate() {
            println!("  {i}: {}", describe(a));
        }
    }
}

/// What one explicit argument receives.
enum Slot {
    Given(ValueSpec),
    /// A WGSL runtime-sized binding's `NAME_size` left out: the byte size of
    /// the buffer given for explicit argument `buffer` (`NAME`).
    BufferSize {
        buffer: usize,
    },
}

/// Match every `--arg` to exactly one explicit argument.
fn match_args<'k>(
    info: &'k KernelInfo,
    given: &[(ArgKey, ValueSpec)],
) -> Result<Vec<(usize, &'k KernelArg, Slot)>, RunError> {
    let explicit = explicit_args(info);
    let names: Vec<String> = explicit
        .iter()
        .enumerate()
        .map(|(i, a)| format!("{i}:{}", describe(a)))
        .collect();
    let mut slots: Vec<Option<ValueSpec>> = vec![None; explicit.len()];
    for (key, value) in given {
        let index = match key {
            ArgKey::Index(i) if *i < explicit.len() => *i,
            ArgKey::Index(i) => {
                return Err(RunError::NoArgumentIndex {
                    kernel: info.name.clone(),
                    index: *i,
                    count: explicit.len(),
                    arguments: names,
                });
            }
            ArgKey::Name(n) => explicit
                .iter()
                .position(|a| a.name.as_deref() == Some(n))
                .ok_or_else(|| RunError::NoArgumentName {
                    kernel: info.name.clone(),
                    name: n.clone(),
                    arguments: names.clone(),
                })?,
        };
        if slots[index].is_some() {
            return Err(RunError::ArgumentTwice {
                argument: describe(explicit[index]),
            });
        }
        slots[index] = Some(value.clone());
    }
    let mut out = Vec::new();
    for (i, slot) in slots.iter().enumerate() {
        let slot = match slot {
            Some(value) => Slot::Given(value.clone()),
            None => match size_of_buffer(&explicit, &slots, i) {
                Some(buffer) => Slot::BufferSize { buffer },
                None => {
                    return Err(RunError::MissingArgument {
                        index: i,
                        argument: describe(explicit[i]),
                    });
                }
            },
        };
        out.push((i, explicit[i], slot));
    }
    Ok(out)
}

/// The buffer argument whose size explicit argument `index` holds, when it
/// is a WGSL runtime-sized binding's `NAME_size` (aqueduct-shaderc names the
/// binding `NAME` and passes its byte size by value) and `NAME` was given.
fn size_of_buffer(
    explicit: &[&KernelArg],
    slots: &[Option<ValueSpec>],
    index: usize,
) -> Option<usize> {
    let arg = explicit[index];
    let buffer_name = arg.name.as_deref()?.strip_suffix("_size")?;
    if arg.value_kind != ValueKind::ByValue || !matches!(arg.size, 4 | 8) {
        return None;
    }
    explicit.iter().enumerate().position(|(j, a)| {
        a.value_kind == ValueKind::GlobalBuffer
            && a.name.as_deref() == Some(buffer_name)
            && slots[j].is_some()
    })
}

/// A scalar's spec type must be the argument's declared type (when the
/// metadata declares a scalar type), unless `force`.
fn check_scalar_type(
    index: usize,
    arg: &KernelArg,
    given: ScalarType,
    force: bool,
) -> Result<(), RunError> {
    let Some(type_name) = &arg.type_name else {
        return Ok(());
    };
    match ScalarType::from_type_name(type_name) {
        Some(declared) if declared != given && !force => Err(RunError::ScalarType {
            index,
            argument: describe(arg),
            declared: type_name.clone(),
            declared_spec: declared.name(),
            given,
        }),
        _ => Ok(()),
    }
}

/// Run as `opts` say; the number of sanitizer findings (0 without the
/// sanitizer).
fn run(opts: Options) -> Result<usize, RunError> {
    let bytes = std::fs::read(&opts.code_object).map_err(|source| RunError::Read {
        path: opts.code_object.clone(),
        source,
    })?;
    if opts.disasm {
        let text = disasm::disassemble_code_object(&bytes).map_err(RunError::Disasm)?;
        print!("{text}");
        return Ok(0);
    }
    #[cfg(feature = "sim")]
    let device = RunDevice::open(opts.device, opts.timeout, opts.sanitize)?;
    #[cfg(not(feature = "sim"))]
    let device = RunDevice::open(opts.device, opts.timeout)?;
    let runtime = Runtime::new(device.kfd.clone()).map_err(RunError::RuntimeInit)?;
    let agent = runtime.gpu_agent(opts.gpu)?;
    let executable = runtime.load_executable(agent, &bytes)?;
    if opts.list {
        list_kernels(executable.kernels());
        return Ok(0);
    }
    let kernel_name = match &opts.kernel {
        Some(k) => kernel_name::resolve(executable.kernels(), k)?.unwrap_or_else(|| k.clone()),
        None => match executable.kernels() {
            [only] => only.name.clone(),
            ks => {
                return Err(RunError::KernelRequired {
                    kernels: ks.iter().map(|k| k.name.clone()).collect(),
                });
            }
        },
    };
    let kernel = executable.kernel(&kernel_name)?;
    let (grid, grid_dims) = opts.grid.ok_or(RunError::Required("--grid"))?;
    let (workgroup, wg_dims) = opts.workgroup.ok_or(RunError::Required("--workgroup"))?;
    let dims = grid_dims.max(wg_dims);
    // The command processor refuses a larger grid with a queue error
    // (HSA_AGENT_INFO_GRID_MAX_SIZE); say so before anything is submitted.
    // Saturating: three u32 extents can exceed u64 (2^31 x 2^31 x 4).
    let grid_items = grid.iter().fold(1u64, |n, &g| n.saturating_mul(g as u64));
    if grid_items > agent.grid_max_size as u64 {
        return Err(RunError::GridTooLarge {
            grid,
            items: grid_items,
            max: agent.grid_max_size as u64,
        });
    }
    let wg_items = workgroup
        .iter()
        .fold(1u64, |n, &w| n.saturating_mul(w as u64));
    let max_wg = kernel.info.max_flat_workgroup_size.max(1) as u64;
    if wg_items > max_wg.min(agent.max_workgroup_size as u64) {
        return Err(RunError::WorkgroupTooLarge {
            workgroup,
            items: wg_items,
            kernel: kernel.info.name.clone(),
            max: max_wg.min(agent.max_workgroup_size as u64),
        });
    }
    if let Some(required) = kernel.info.reqd_workgroup_size
        && required != workgroup
    {
        return Err(RunError::WorkgroupMismatch {
            kernel: kernel.info.name.clone(),
            required,
            workgroup,
        });
    }

    let matched = match_args(&kernel.info, &opts.args)?;
    let pool = runtime.pool(agent, PoolKind::FineSystem)?;
    let mut builder = KernargBuilder::new(&kernel.info);
    let mut buffers: Vec<BufferArg> = Vec::new();
    // Byte size of each buffer argument, by explicit index.
    let mut buffer_sizes = vec![0u64; matched.len()];
    let mut sizes_to_fill = Vec::new();
    let mut locals: Vec<(usize, &KernelArg, LocalRequest)> = Vec::new();
    for (index, arg, slot) in matched {
        let what = describe(arg);
        let value = match slot {
            Slot::Given(value) => value,
            Slot::BufferSize { buffer } => {
                sizes_to_fill.push((index, arg, buffer));
                continue;
            }
        };
        match (&arg.value_kind, value) {
            (ValueKind::ByValue, value) => {
                let ValueSpec::Typed { ty, values, count } = &value else {
                    return Err(RunError::ScalarExpected {
                        index,
                        argument: what,
                    });
                };
                if *count != 1 {
                    return Err(RunError::ScalarList {
                        index,
                        argument: what,
                        count: *count,
                    });
                }
                if values.len() != arg.size as usize {
                    return Err(RunError::ScalarSize {
                        index,
                        argument: what,
                        size: arg.size,
                        ty: *ty,
                        given: values.len(),
                    });
                }
                check_scalar_type(index, arg, *ty, opts.force)?;
                builder.set(ArgRef::Index(index), values)?;
            }
            (ValueKind::DynamicSharedPointer, ValueSpec::Local(bytes)) => {
                // The metadata gives every local pointer its pointee alignment;
                // 16 bytes (the largest scalar vector) where it does not.
                let align = arg.pointee_align.unwrap_or(16);
                locals.push((index, arg, LocalRequest { bytes, align }));
            }
            (ValueKind::DynamicSharedPointer, _) => {
                return Err(RunError::LocalExpected {
                    index,
                    argument: what,
                });
            }
            (_, ValueSpec::Local(_)) => {
                return Err(RunError::NotLocal {
                    index,
                    argument: what,
                });
            }
            (ValueKind::GlobalBuffer, value) => {
                let init = value
                    .buffer_bytes()
                    .map_err(|source| RunError::BufferValue {
                        index,
                        argument: what.clone(),
                        source,
                    })?;
                // A zero-byte buffer still needs an address the kernel may hold.
                let mut allocation = pool
                    .allocate(init.len().max(4) as u64)
                    .map_err(|source| RunError::BufferAllocation { index, source })?;
                allocation
                    .as_mut_slice()
                    .ok_or(RunError::NotHostMapped("buffer memory"))?[..init.len()]
                    .copy_from_slice(&init);
                builder.set_ptr(ArgRef::Index(index), allocation.gpu_va())?;
                buffer_sizes[index] = init.len() as u64;
                let output = match value {
                    ValueSpec::Output { path, bytes } => Some((path, bytes)),
                    ValueSpec::InOut(path) => Some((path, init.len() as u64)),
                    _ => None,
                };
                buffers.push(BufferArg { allocation, output });
            }
            (other, _) => {
                return Err(RunError::UnsupportedKind {
                    index,
                    argument: what,
                    kind: other.clone(),
                });
            }
        }
    }
    for (index, arg, buffer) in sizes_to_fill {
        let size = buffer_sizes[buffer];
        let bytes = size.to_le_bytes();
        if arg.size == 4 && u32::try_from(size).is_err() {
            return Err(RunError::ScalarSize {
                index,
                argument: describe(arg),
                size: arg.size,
                ty: ScalarType::U64,
                given: 8,
            });
        }
        builder.set(ArgRef::Index(index), &bytes[..arg.size as usize])?;
    }
    let requests: Vec<LocalRequest> = locals.iter().map(|(_, _, r)| *r).collect();
    let lds = lds::plan(
        &kernel.info.name,
        kernel.info.group_segment_fixed_size,
        &requests,
        opts.dynamic_lds,
        agent.lds_size,
    )?;
    for ((index, arg, _), offset) in locals.iter().zip(&lds.offsets) {
        // A local pointer is a 32-bit LDS address; a 64-bit slot gets it zero-extended.
        let bytes = u64::from(*offset).to_le_bytes();
        builder.set(ArgRef::Index(*index), &bytes[..(arg.size as usize).min(8)])?;
    }
    let mut shape = DispatchShape::new(grid, workgroup, dims);
    shape.dynamic_lds_size = lds.dynamic;
    let kernarg_bytes = builder.finish(&shape)?;
    let mut kernargs = runtime
        .kernargs(agent)
        .and_then(|k| k.allocate(kernarg_bytes.len().max(16) as u64))?;
    kernargs.as_mut_slice()[..kernarg_bytes.len()].copy_from_slice(&kernarg_bytes);

    let queue = runtime.create_queue(agent, 64)?;
    let wg16 = |w: u32| u16::try_from(w).map_err(|_| RunError::WorkgroupDimension(w));
    let mut dispatch = kernel.dispatch(
        kernargs.gpu_va(),
        grid,
        [
            wg16(workgroup[0])?,
            wg16(workgroup[1])?,
            wg16(workgroup[2])?,
        ],
    );
    dispatch.dimensions = dims as u8;
    dispatch.group_segment_size = lds.total;
    let signal = runtime.create_signal(1)?;
    dispatch.completion_signal = signal.handle();
    let packet = dispatch.to_packet()?;

    if opts.profile {
        queue.set_profiling(true);
        device.set_dispatch_counters(true);
    }
    let mut rows = Vec::new();
    let mut times = Vec::new();
    for _ in 0..opts.repeat {
        signal.store(1, aqueduct::hsa::MemoryOrder::Release);
        let start = Instant::now();
        queue.submit_dispatch(&packet)?;
        signal
            .wait(WaitCondition::Eq, 0, opts.timeout, WaitHint::Blocked)
            .map_err(|source| {
                let image_base = kernel.kernel_object - kernel.info.descriptor_offset;
                let entries = Entries::new(image_base, executable.kernels())
                    .with_lines(debug_line::LineTable::of_loaded(&bytes, agent));
                RunError::KernelFailed {
                    kernel: kernel.info.name.clone(),
                    source: Box::new(source),
                    wave: device
                        .wave_error(queue.id())
                        .map(|report| entries.annotate(&report)),
                }
            })?;
        times.push(start.elapsed());
        if opts.profile {
            rows.push(profile::ProfileRow {
                gpu_ns: runtime
                    .dispatch_time(agent, &signal)
                    .ok()
                    .map(|t| t.end - t.start),
                #[cfg(feature = "sim")]
                counters: device.dispatch_counters(signal.handle()),
            });
        }
    }

    for b in &buffers {
        if let Some((path, bytes)) = &b.output {
            let data = &b
                .allocation
                .as_slice()
                .ok_or(RunError::NotHostMapped("output buffer"))?[..*bytes as usize];
            std::fs::write(path, data).map_err(|source| RunError::Write {
                path: path.clone(),
                source,
            })?;
        }
    }
    let best = times.iter().min().copied().unwrap_or_default();
    let mean = times.iter().sum::<Duration>() / times.len() as u32;
    println!(
        "{} on {} ({}): grid {:?} workgroup {:?}",
        kernel.info.name,
        agent.name,
        runtime.device().backend_name(),
        &grid[..dims as usize],
        &workgroup[..dims as usize]
    );
    if times.len() == 1 {
        println!("dispatch time: {:.3} ms", best.as_secs_f64() * 1e3);
    } else {
        println!(
            "dispatch time over {} runs: best {:.3} ms, mean {:.3} ms",
            times.len(),
            best.as_secs_f64() * 1e3,
            mean.as_secs_f64() * 1e3
        );
    }
    if opts.profile {
        print!("{}", profile::table(&rows));
    }
    #[cfg(feature = "sim")]
    {
        let reports = device.sanitizer_reports();
        let image_base = kernel.kernel_object - kernel.info.descriptor_offset;
        let entries = Entries::new(image_base, executable.kernels())
            .with_lines(debug_line::LineTable::of_loaded(&bytes, agent));
        sanitize::summarize(&reports, &entries);
        Ok(reports.len())
    }
    #[cfg(not(feature = "sim"))]
    Ok(0)
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
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(opts) {
        Ok(0) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(sanitize::FOUND_STATUS),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
