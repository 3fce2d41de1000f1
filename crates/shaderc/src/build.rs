//! Folder builds: `aqueduct-shaderc build DIR` and build.rs integration.
//!
//! Every `*.wgsl` in a folder (and its subfolders) becomes, per target,
//! `<folder>/<target>/NAME.co` plus `<folder>/<target>/NAME.reflect.json`
//! (the reflection is target independent; a copy sits beside each object so
//! a target folder is self-contained). Output is deterministic, so checked-in
//! objects can be compared byte for byte with a fresh build; it is clang-19
//! and ld.lld-19's unless `Options::llvm_mode` asks for in-process LLVM
//! (whose files differ from lld's outside the loaded segments).
//!
//! [`compile_dir`] writes into another folder (a build script's OUT_DIR);
//! when clang-19/ld.lld-19 are absent it copies the precompiled files from
//! the source folder instead, so downstream builds need no LLVM.

use std::path::{Path, PathBuf};

use crate::{CompileError, LlvmMode, Options, Source, Toolchain, compile};

/// The targets `aqueduct-shaderc build` produces by default.
pub const DEFAULT_BUILD_TARGETS: &[&str] = &["gfx1100", "gfx942", "gfx90a"];

/// One shader of a folder build.
#[derive(Clone, Debug)]
pub struct BuiltShader {
    /// The source file.
    pub source: PathBuf,
    /// `(target, code object path, reflection path)`.
    pub outputs: Vec<(String, PathBuf, PathBuf)>,
    /// True when copied from precompiled files instead of compiled.
    pub precompiled: bool,
}

/// The `*.wgsl` files under `dir`, sorted, relative paths included.
pub fn wgsl_files(dir: &Path) -> Result<Vec<PathBuf>, CompileError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| CompileError::io(&d, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| CompileError::io(&d, e))?;
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "wgsl") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), CompileError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| CompileError::io(parent, e))?;
    }
    std::fs::write(path, bytes).map_err(|e| CompileError::io(path, e))
}

/// Compile every `*.wgsl` under `dir` into `out_dir` (same relative layout,
/// `<target>/NAME.co` + `<target>/NAME.reflect.json` beside each source).
/// Without LLVM, the precompiled files under `dir` are copied instead.
pub fn compile_dir(
    dir: &Path,
    out_dir: &Path,
    options: &Options,
) -> Result<Vec<BuiltShader>, CompileError> {
    // Ahead-of-time objects are ld.lld's bytes unless asked otherwise, so
    // checked-in files do not depend on whether libLLVM-19 loads.
    let options = &Options {
        llvm_mode: Some(options.llvm_mode.unwrap_or(LlvmMode::Process)),
        ..options.clone()
    };
    let have_llvm = Toolchain::for_options(options).is_ok();
    let mut built = Vec::new();
    for src in wgsl_files(dir)? {
        let rel = src.strip_prefix(dir).unwrap_or(&src);
        let rel_dir = rel.parent().unwrap_or(Path::new(""));
        let stem = src
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("shader")
            .to_string();
        let mut outputs = Vec::new();
        if have_llvm {
            let text = std::fs::read_to_string(&src).map_err(|e| CompileError::io(&src, e))?;
            let opts = Options {
                file_name: rel.to_string_lossy().replace('\\', "/"),
                ..options.clone()
            };
            let compiled = compile(Source::Wgsl(&text), &opts)?;
            let json = compiled.reflection.to_json()?;
            for (target, co) in &compiled.objects {
                let base = out_dir.join(rel_dir).join(target);
                let co_path = base.join(format!("{stem}.co"));
                let json_path = base.join(format!("{stem}.reflect.json"));
                write(&co_path, co)?;
                write(&json_path, json.as_bytes())?;
                outputs.push((target.clone(), co_path, json_path));
            }
        } else {
            for target in &options.targets {
                let from = dir.join(rel_dir).join(target);
                let base = out_dir.join(rel_dir).join(target);
                let mut paths = Vec::new();
                for name in [format!("{stem}.co"), format!("{stem}.reflect.json")] {
                    let bytes =
                        std::fs::read(from.join(&name)).map_err(|_| CompileError::ToolMissing {
                            tool: format!(
                                "clang-19 (no precompiled {} for {target})",
                                from.join(&name).display()
                            ),
                            package: "clang-19 lld-19".into(),
                        })?;
                    let to = base.join(&name);
                    if from.join(&name) != to {
                        write(&to, &bytes)?;
                    }
                    paths.push(to);
                }
                outputs.push((target.clone(), paths[0].clone(), paths[1].clone()));
            }
        }
        tracing::info!(source = %src.display(), precompiled = !have_llvm, "shader built");
        built.push(BuiltShader {
            source: src,
            outputs,
            precompiled: !have_llvm,
        });
    }
    Ok(built)
}

/// `aqueduct-shaderc build DIR`: compile in place (outputs beside sources).
pub fn build_dir(dir: &Path, options: &Options) -> Result<Vec<BuiltShader>, CompileError> {
    Toolchain::find(options.llvm_bin.as_deref())?;
    compile_dir(dir, dir, options)
}

/// Embed a code object built by [`compile_dir`] into `OUT_DIR`:
/// `include_shader!("name")` (gfx1100), `include_shader!("name", "gfx942")`,
/// or for a shader in a subfolder `include_shader!("tests", "name", "gfx1100")`.
#[macro_export]
macro_rules! include_shader {
    ($name:literal) => {
        $crate::include_shader!($name, "gfx1100")
    };
    ($name:literal, $target:literal) => {
        include_bytes!(concat!(env!("OUT_DIR"), "/", $target, "/", $name, ".co"))
    };
    ($dir:literal, $name:literal, $target:literal) => {
        include_bytes!(concat!(
            env!("OUT_DIR"),
            "/",
            $dir,
            "/",
            $target,
            "/",
            $name,
            ".co"
        ))
    };
}

/// The reflection JSON text of a shader built by [`compile_dir`]:
/// `include_shader_reflection!("name")`.
#[macro_export]
macro_rules! include_shader_reflection {
    ($name:literal) => {
        include_str!(concat!(
            env!("OUT_DIR"),
            "/gfx1100/",
            $name,
            ".reflect.json"
        ))
    };
}
