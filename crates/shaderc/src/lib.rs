//! aqueduct-shaderc: WGSL and SPIR-V compute shaders → AMDGPU code objects.
//!
//! Pipeline: naga's WGSL / SPIR-V front ends and validator → naga IR →
//! textual LLVM IR for `amdgcn-amd-amdhsa` (this crate's own emitter, see
//! `emit/`) → libLLVM-19 in process and this crate's linker ([`link`]), or
//! `clang-19 -x ir` and `ld.lld-19 -shared` as subprocesses ([`LlvmMode`])
//! → an ELF code object (code object v5) per target; several targets are
//! packed into one clang offload bundle.
//!
//! # Batches
//! [`compile_translated`] (and [`compile_batch`] from sources) compiles
//! several modules with one LLVM compile and one link into one code
//! object; each module is translated with its own [`Options::symbol_prefix`]
//! so their symbols never collide, and each keeps its own reflection or
//! error (see `batch.rs`).
//!
//! # Binding ABI
//! Each `@compute` entry point becomes one `amdgpu_kernel` named after the
//! entry point (`PREFIX.name` with a symbol prefix; the reflection's
//! `kernel` is the symbol). Its explicit kernel arguments are, for each
//! buffer binding the entry point uses, in (group, binding) order:
//! - `g{group}_b{binding}`: a global pointer to the binding's first byte;
//! - `g{group}_b{binding}_size` (u32, only when the binding's type ends in a
//!   runtime-sized array): the binding's size in bytes, which arrayLength and
//!   the bounds checks use (bindings are limited to 4 GiB - 1 bytes).
//!
//! then, when the entry point uses its `var<immediate>`, `immediates`: the
//! variable's bytes at its WGSL layout as one by-value argument (a `byref`
//! pointer into the kernarg segment in the IR), reflected as
//! [`ImmediateReflection`] so a runtime copies the pass's immediate data
//! into it.
//!
//! Dispatch geometry comes from the code object v5 hidden arguments (block
//! counts and remainders for num_workgroups) and the work-item / workgroup
//! id registers; the workgroup size is fixed at compile time and recorded as
//! `.reqd_workgroup_size`. WGSL has no global offset: global_invocation_id
//! is `workgroup_id * workgroup_size + local_invocation_id`.
//!
//! Robustness: dynamic indices are clamped to the last element (loads and
//! atomics read/modify an element of the same array), and stores whose
//! index was out of bounds are dropped, so a kernel never faults.
//!
//! # Reflection
//! [`Reflection`] (also written as `NAME.reflect.json`) lists per entry
//! point the kernel name, workgroup size, workgroup memory and each
//! binding's kind, minimum size, runtime array stride and argument names,
//! plus `source_hash` ([`source_hash`]: SHA-256 of the source), the key a
//! run-time compiler caches code objects by.
//!
//! # Build-time use
//! In a `build.rs`:
//! ```no_run
//! let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
//! aqueduct_shaderc::build::compile_dir("shaders".as_ref(), &out, &Default::default()).unwrap();
//! ```
//! then in the crate: `const CO: &[u8] = aqueduct_shaderc::include_shader!("fill_u32");`
//! (`include_shader!("name", "gfx942")` for another target;
//! `include_shader_reflection!("name")` for the JSON). `compile_dir` reuses
//! the precompiled `DIR/<target>/NAME.co` files when LLVM is not installed.

mod baseline;
mod batch;
pub mod build;
mod diagnostic;
mod emit;
mod error;
mod frontend;
pub mod link;
mod llvm_in_process;
mod matrix_cores;
mod reflect;
mod toolchain;

use std::path::PathBuf;

pub use batch::{
    BatchCompiled, BatchMember, BatchObject, compile_batch, compile_translated, link_ir,
};
pub use error::{CompileError, ComputeLimit, LlvmStage, UnsupportedKind};
pub use frontend::{Source, to_wgsl};
/// naga's validator capabilities, as [`Options::capabilities`] takes them.
pub use naga::valid::Capabilities;
pub use reflect::{
    BindingKind, BindingReflection, EntryReflection, ImmediateReflection, REFLECTION_VERSION,
    Reflection, StorageTextureAccess, StorageTextureFormat, TextureReflection, TextureSampleType,
    TextureViewDimension,
};
pub use toolchain::{
    KNOWN_TARGETS, LLVM_MODE_ENV, LlvmMode, Toolchain, bundle, bundle_entry_id, wave_size,
};

/// This compiler's identity: the crate version and a digest of its sources
/// (build.rs), e.g. `0.1.0+3f0c9a1b2c3d4e5f`. Caches of compiled code objects
/// key by it, so no cache answers with an object another build emitted.
pub const COMPILER_ID: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "+",
    env!("AQUEDUCT_SHADERC_SOURCE_DIGEST")
);

/// Compilation options.
#[derive(Clone, Debug)]
pub struct Options {
    /// gfx targets (default: gfx1100). Several → one offload bundle.
    pub targets: Vec<String>,
    /// LLVM optimisation level 0..=3 (default 3).
    pub opt_level: u8,
    /// Compile only this entry point (default: every compute entry point).
    pub entry: Option<String>,
    /// Values of pipeline-overridable constants, by name or numeric id.
    pub defines: Vec<(String, f64)>,
    /// The file name used in diagnostics and reflection.
    pub file_name: String,
    /// Directory holding clang-19 and ld.lld-19 (default: PATH); libLLVM-19
    /// is then looked for in its `../lib`.
    pub llvm_bin: Option<PathBuf>,
    /// How LLVM runs (default None: as [`LLVM_MODE_ENV`] says, in process
    /// when libLLVM-19 loads; [`build::compile_dir`] then uses the tools).
    pub llvm_mode: Option<LlvmMode>,
    /// Put before every symbol the module defines (default: none): with
    /// prefix `P`, entry point `main` becomes kernel symbol `P.main` (the
    /// reflection's `kernel`) and helpers and workgroup variables are
    /// `P.f.N` and `P.wg.N`. ASCII letters, digits and `_`, not starting
    /// with a digit. Modules compiled together ([`compile_batch`]) need
    /// distinct prefixes.
    pub symbol_prefix: String,
    /// What the validator lets the shader use (default: everything). A
    /// runtime passes the capabilities its device's enabled features give
    /// (`f16` needs [`Capabilities::SHADER_FLOAT16`], `var<immediate>`
    /// [`Capabilities::IMMEDIATES`], ...); a shader that needs more fails
    /// with [`CompileError::MissingCapabilities`].
    pub capabilities: Capabilities,
    /// Also compile with the baseline compiler (no LLVM; gfx11 targets, one
    /// target only) into [`Translated::baseline`] (default: false).
    pub baseline: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            targets: vec!["gfx1100".into()],
            opt_level: 3,
            entry: None,
            defines: Vec::new(),
            file_name: "shader.wgsl".into(),
            llvm_bin: None,
            llvm_mode: None,
            symbol_prefix: String::new(),
            capabilities: Capabilities::all(),
            baseline: false,
        }
    }
}

/// The LLVM IR of a shader and its reflection (needs no LLVM installed).
#[derive(Clone, Debug)]
pub struct Translated {
    pub llvm_ir: String,
    pub reflection: Reflection,
    /// `Options::symbol_prefix` the IR was emitted with.
    pub symbol_prefix: String,
    /// With [`Options::baseline`]: the baseline compiler's code object
    /// (plain, for the one target; the same kernel ABI and reflection as
    /// LLVM's), or what it does not cover in this module.
    pub baseline: Option<Result<Vec<u8>, BaselineUnsupported>>,
}

/// Why the baseline compiler left a module to LLVM: the first construct
/// (or target) it does not cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the baseline compiler does not cover {what}")]
pub struct BaselineUnsupported {
    pub what: &'static str,
}

/// A compiled shader.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// A plain code object (one target) or an offload bundle (several).
    pub code_object: Vec<u8>,
    /// The per-target code objects, in `Options::targets` order.
    pub objects: Vec<(String, Vec<u8>)>,
    pub reflection: Reflection,
    pub llvm_ir: String,
}

/// Lowercase hex SHA-256 of the UTF-8 source text: the `source_hash` of
/// the reflection, and the cache key for code objects compiled at run time.
///
/// ```
/// assert_eq!(
///     aqueduct_shaderc::source_hash("abc"),
///     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// );
/// ```
pub fn source_hash(source: &str) -> String {
    sha256_hex(source.as_bytes())
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    use std::fmt::Write;
    let digest = sha2::Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for b in digest {
        // Writing to a String cannot fail.
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

/// Parse `NAME=VALUE` (a number, or true/false).
pub fn parse_define(text: &str) -> Result<(String, f64), CompileError> {
    let bad = || CompileError::BadDefine(text.into());
    let (name, value) = text.split_once('=').ok_or_else(bad)?;
    let value = match value.trim() {
        "true" => 1.0,
        "false" => 0.0,
        v => v.parse::<f64>().map_err(|_| bad())?,
    };
    if name.trim().is_empty() {
        return Err(bad());
    }
    Ok((name.trim().to_string(), value))
}

/// Front end and IR emission only.
pub fn translate(source: Source<'_>, options: &Options) -> Result<Translated, CompileError> {
    for t in &options.targets {
        if !KNOWN_TARGETS.contains(&t.as_str()) {
            return Err(CompileError::UnknownTarget(t.clone()));
        }
    }
    check_symbol_prefix(&options.symbol_prefix)?;
    let file = options.file_name.as_str();
    let (module, info) = frontend::load(
        &source,
        file,
        options.entry.as_deref(),
        &options.defines,
        options.capabilities,
    )?;
    if !module
        .entry_points
        .iter()
        .any(|e| e.stage == naga::ShaderStage::Compute)
    {
        return Err(CompileError::NoComputeEntryPoint { file: file.into() });
    }
    let emitted = emit::emit_module(
        &module,
        &info,
        options.entry.as_deref(),
        file,
        &options.symbol_prefix,
    )
    .map_err(|e| e.render(source.text(), file))?;
    refuse_gfx9_textures(&emitted.entry_points, &options.targets)?;
    tracing::debug!(file, bytes = emitted.llvm_ir.len(), "emitted LLVM IR");
    Ok(Translated {
        llvm_ir: emitted.llvm_ir,
        reflection: Reflection {
            version: REFLECTION_VERSION,
            source: file.into(),
            source_hash: match source {
                Source::Wgsl(text) => source_hash(text),
                Source::SpirV(bytes) => sha256_hex(bytes),
                Source::Glsl { text, defines } => {
                    let mut keyed = text.to_string();
                    for (name, value) in defines {
                        keyed.push_str(&format!("\n#define {name} {value}"));
                    }
                    sha256_hex(keyed.as_bytes())
                }
            },
            constants: options.defines.iter().cloned().collect(),
            entry_points: emitted.entry_points,
        },
        symbol_prefix: options.symbol_prefix.clone(),
        baseline: None,
    }
    .with_baseline(&module, &info, options))
}

impl Translated {
    /// Fill [`Translated::baseline`] when `options` ask for it.
    fn with_baseline(
        mut self,
        module: &naga::Module,
        info: &naga::valid::ModuleInfo,
        options: &Options,
    ) -> Self {
        if !options.baseline {
            return self;
        }
        let compiled = match options.targets.as_slice() {
            [target] => baseline::compile(module, info, &self.reflection, target)
                .map_err(|u| BaselineUnsupported { what: u.0 }),
            _ => Err(BaselineUnsupported {
                what: "several targets at once",
            }),
        };
        if let Err(e) = &compiled {
            tracing::debug!(file = %self.reflection.source, "{e}; LLVM compiles it");
        }
        self.baseline = Some(compiled);
        self
    }
}

/// Textures are gfx11 only here. GFX9 targets have no image instructions
/// this compiler can use: LLVM 19 refuses image sampling for gfx90a and
/// gfx942 ("requested image instruction is not supported on this GPU"),
/// and for gfx942 it emits image loads and stores as MIMG words its own
/// gfx942 disassembler does not decode (llvm-objdump-19 prints `.long`);
/// gfx90a keeps MIMG loads and stores, but gfxsim's GFX9 decoder has no
/// MIMG encodings. An entry point with a texture binding is refused for a
/// GFX9 target here, with a typed error naming the target, rather than
/// failing when it runs.
fn refuse_gfx9_textures(
    entry_points: &[EntryReflection],
    targets: &[String],
) -> Result<(), CompileError> {
    let Some(target) = targets.iter().find(|t| t.starts_with("gfx9")) else {
        return Ok(());
    };
    let found = entry_points.iter().find_map(|e| {
        e.bindings
            .iter()
            .find(|b| b.texture.is_some())
            .map(|b| (e, b))
    });
    match found {
        None => Ok(()),
        Some((e, b)) => {
            let construct = format!("textures on {target}");
            Err(CompileError::Unsupported {
                kind: UnsupportedKind::TargetTextures,
                rendered: format!(
                    "entry point `{}`: the texture at @group({}) @binding({}): {construct} \
                     (GFX9 targets have no image instructions here)",
                    e.name, b.group, b.binding
                ),
                construct,
                location: None,
            })
        }
    }
}

/// An error unless `prefix` is empty or an LLVM identifier without dots
/// (`[A-Za-z_][A-Za-z0-9_]*`), so `PREFIX.name` never needs quoting and
/// never equals an unprefixed symbol.
fn check_symbol_prefix(prefix: &str) -> Result<(), CompileError> {
    let mut chars = prefix.chars();
    let valid = match chars.next() {
        None => true,
        Some(first) => {
            (first.is_ascii_alphabetic() || first == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
    };
    if valid {
        Ok(())
    } else {
        Err(CompileError::BadSymbolPrefix(prefix.to_string()))
    }
}

/// `ir` (a [`Translated`] module's IR, the same for every target) exactly
/// as it is compiled for `target`: with the per-target helpers it only
/// declares defined (the cooperative matrix multiply-add's matrix-core
/// path, `matrix_cores.rs`).
pub fn ir_for_target(ir: &str, target: &str) -> String {
    matrix_cores::define_for_target(ir, target).into_owned()
}

/// Compile a shader to a code object (or a bundle for several targets).
pub fn compile(source: Source<'_>, options: &Options) -> Result<Compiled, CompileError> {
    let translated = translate(source, options)?;
    let stem = std::path::Path::new(&options.file_name)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("shader")
        .to_string();
    let object = batch::compile_ir(&translated.llvm_ir, &stem, options)?;
    Ok(Compiled {
        code_object: object.code_object,
        objects: object.objects,
        reflection: translated.reflection,
        llvm_ir: translated.llvm_ir,
    })
}
