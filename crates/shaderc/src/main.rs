//! The `aqueduct-shaderc` command line:
//!
//! ```text
//! aqueduct-shaderc compile SHADER.wgsl|.spv|.comp [--entry NAME] [--target gfx1100,gfx942,...]
//!                  [-O0..-O3] [--define NAME=VALUE]... [--capabilities LIST] [--emit-llvm] -o OUT
//! aqueduct-shaderc build DIR [--target ...] [-O0..-O3] [--capabilities LIST]
//! ```
//! The validator allows every capability unless `--capabilities` lists the
//! ones to allow (naga's names, e.g. `SHADER_FLOAT16,SHADER_INT64`, or
//! `none`), as a runtime does from its device's features.
//! `compile` writes OUT (a code object, or an offload bundle for several
//! targets) and OUT's stem + `.reflect.json`; `--emit-llvm` prints the IR
//! (and writes no object when no `-o` is given): with one target, as it is
//! compiled for that target (the per-target helpers defined), else the IR
//! every target shares. Errors are printed the way
//! naga prints them; the exit code is 1.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use aqueduct_shaderc::{
    Capabilities, CompileError, Options, Source, build, compile, ir_for_target, parse_define,
    translate,
};

const USAGE: &str = "usage:
  aqueduct-shaderc compile SHADER.wgsl|.spv|.comp [--entry NAME] [--target gfx1100,gfx942,...] [-O0..-O3]
                   [--define NAME=VALUE]... [--capabilities LIST] [--emit-llvm] -o OUT
  aqueduct-shaderc build DIR [--target gfx1100,gfx942,gfx90a] [-O0..-O3] [--capabilities LIST]
  --capabilities: the naga validator capabilities to allow (default: all), e.g.
                  SHADER_FLOAT16,SHADER_INT64,SUBGROUP, or none";

struct Args {
    command: String,
    input: Option<PathBuf>,
    output: Option<PathBuf>,
    emit_llvm: bool,
    options: Options,
    targets_given: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let command = args.next().ok_or("missing command")?;
    let mut parsed = Args {
        command,
        input: None,
        output: None,
        emit_llvm: false,
        options: Options::default(),
        targets_given: false,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--entry" => parsed.options.entry = Some(args.next().ok_or("--entry needs a name")?),
            "--target" => {
                let list = args.next().ok_or("--target needs a list")?;
                parsed.options.targets = list.split(',').map(|s| s.trim().to_string()).collect();
                parsed.targets_given = true;
            }
            "--define" | "-D" => {
                let d = args.next().ok_or("--define needs NAME=VALUE")?;
                parsed
                    .options
                    .defines
                    .push(parse_define(&d).map_err(|e| e.to_string())?);
            }
            "--capabilities" => {
                let list = args.next().ok_or("--capabilities needs a list")?;
                parsed.options.capabilities = parse_capabilities(&list)?;
            }
            "--emit-llvm" => parsed.emit_llvm = true,
            "-o" => parsed.output = Some(PathBuf::from(args.next().ok_or("-o needs a path")?)),
            "-O0" | "-O1" | "-O2" | "-O3" => parsed.options.opt_level = arg.as_bytes()[2] - b'0',
            "-h" | "--help" => return Err(String::new()),
            other if other.starts_with('-') => return Err(format!("unknown option {other}")),
            other => {
                if parsed.input.is_some() {
                    return Err(format!("unexpected argument {other}"));
                }
                parsed.input = Some(PathBuf::from(other));
            }
        }
    }
    Ok(parsed)
}

/// Comma-separated naga capability names, or `none`.
fn parse_capabilities(list: &str) -> Result<Capabilities, String> {
    let mut caps = Capabilities::empty();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if name.eq_ignore_ascii_case("none") {
            continue;
        }
        caps |= Capabilities::from_name(&name.to_ascii_uppercase()).ok_or_else(|| {
            let known: Vec<&str> = Capabilities::all().iter_names().map(|(n, _)| n).collect();
            format!("unknown capability {name} (known: {})", known.join(", "))
        })?;
    }
    Ok(caps)
}

fn run_compile(args: &Args) -> Result<(), CompileError> {
    let input = args.input.as_deref().unwrap_or(Path::new(""));
    let bytes = std::fs::read(input).map_err(|e| CompileError::Io {
        path: input.to_path_buf(),
        source: e,
    })?;
    let mut options = args.options.clone();
    options.file_name = input.to_string_lossy().into_owned();
    let extension = input.extension().and_then(|e| e.to_str()).unwrap_or("");
    let text;
    let source = if extension == "spv" {
        Source::SpirV(&bytes)
    } else {
        text = String::from_utf8_lossy(&bytes).into_owned();
        if matches!(extension, "comp" | "glsl") {
            Source::Glsl {
                text: &text,
                defines: &[],
            }
        } else {
            Source::Wgsl(&text)
        }
    };
    let print_ir = |ir: &str| match options.targets.as_slice() {
        [target] => print!("{}", ir_for_target(ir, target)),
        _ => print!("{ir}"),
    };
    if args.emit_llvm && args.output.is_none() {
        let t = translate(source, &options)?;
        print_ir(&t.llvm_ir);
        return Ok(());
    }
    let compiled = compile(source, &options)?;
    if args.emit_llvm {
        print_ir(&compiled.llvm_ir);
    }
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| input.with_extension("co"));
    std::fs::write(&out, &compiled.code_object).map_err(|e| CompileError::Io {
        path: out.clone(),
        source: e,
    })?;
    let json_path = out.with_extension("reflect.json");
    std::fs::write(&json_path, compiled.reflection.to_json()?).map_err(|e| CompileError::Io {
        path: json_path.clone(),
        source: e,
    })?;
    Ok(())
}

fn run_build(args: &Args) -> Result<(), CompileError> {
    let dir = args.input.as_deref().unwrap_or(Path::new("."));
    let mut options = args.options.clone();
    if !args.targets_given {
        options.targets = build::DEFAULT_BUILD_TARGETS
            .iter()
            .map(|s| s.to_string())
            .collect();
    }
    let built = build::build_dir(dir, &options)?;
    for b in &built {
        eprintln!("built {} ({} targets)", b.source.display(), b.outputs.len());
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(msg) => {
            if !msg.is_empty() {
                eprintln!("error: {msg}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(if msg.is_empty() { 0 } else { 2 });
        }
    };
    let result = match args.command.as_str() {
        "compile" if args.input.is_some() => run_compile(&args),
        "build" => run_build(&args),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprint!("{e}");
            if !e.to_string().ends_with('\n') {
                eprintln!();
            }
            ExitCode::from(1)
        }
    }
}
