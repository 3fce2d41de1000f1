//! Shader modules: loaded code objects plus, per entry point, how WebGPU
//! bindings and immediates map onto kernel arguments.
//!
//! Sources:
//! - [`ShaderSource::CodeObject`]: a raw AMDGPU code object or offload
//!   bundle (hipcc, clang/OpenCL). Bindings come from the kernel's argument
//!   metadata: the explicit pointer arguments, in order, are bindings 0, 1,
//!   2... of group 0 (read-only when the argument is `const`); by-value
//!   arguments are immediates, packed in order at their natural alignment.
//!   The workgroup size is the kernel's `reqd_workgroup_size`, else the one
//!   given with the source, else 64.
//! - [`ShaderSource::Precompiled`]: a code object from aqueduct-shaderc with
//!   its `NAME.reflect.json`: each binding's argument `g{group}_b{binding}`,
//!   its kind (storage_read / storage_read_write / uniform), its minimum
//!   size, and the `_size` argument of runtime-sized arrays; the by-value
//!   argument holding the entry point's `var<immediate>` and where its
//!   bytes sit in the immediate data.
//! - [`ShaderSource::SpirV`] and [`ShaderSource::Glsl`] (cargo feature
//!   `wgsl`): validated by naga's front end for their language, written as
//!   WGSL by naga's WGSL back end, then resolved as that WGSL (so they share
//!   its cache, batching and reflection; SPIR-V specialization constants
//!   become overrides with the same ids).
//! - [`ShaderSource::Wgsl`]: WGSL text, resolved by `crate::wgsl`: a
//!   precompiled object registered for the source's content hash, else
//!   compiled at run time by aqueduct-shaderc when LLVM is installed (cargo
//!   feature `wgsl`; translated at creation, compiled with the other
//!   waiting modules by the first pipeline that needs it), else an error
//!   that says how to precompile it.

use std::borrow::Cow;
use std::sync::Arc;

use aqueduct_hsa::code_object::ValueKind;
use aqueduct_hsa::{Agent, Executable, Kernel, Runtime};
use serde::Deserialize;
use wgpu_types::BufferBindingType;

use crate::device::DeviceShared;
#[cfg(feature = "wgsl")]
use crate::error::ShaderLanguage;
use crate::error::{
    DeviceId, DeviceMismatch, EntryPointError, ObjectKind, ReflectionError, ShaderLoadError,
    ShaderModuleError, same_device,
};

/// A shader module's source.
#[non_exhaustive]
#[derive(Clone, Debug)]
pub enum ShaderSource<'a> {
    /// WGSL text: a registered precompiled object with the same content
    /// hash, else compiled at run time (see the module docs).
    Wgsl(Cow<'a, str>),
    /// A code object or offload bundle; bindings from the argument metadata.
    CodeObject {
        /// The code object's bytes.
        code: Cow<'a, [u8]>,
        /// Workgroup size for kernels without `reqd_workgroup_size`
        /// (None: 64x1x1).
        workgroup_size: Option<[u32; 3]>,
    },
    /// A SPIR-V module's words, translated to WGSL at creation.
    #[cfg(feature = "wgsl")]
    SpirV(Cow<'a, [u32]>),
    /// A GLSL compute shader (entry point `main`), translated to WGSL at
    /// creation; `defines` are the preprocessor's `#define NAME VALUE`s.
    #[cfg(feature = "wgsl")]
    Glsl {
        /// The GLSL text.
        shader: Cow<'a, str>,
        /// (name, value) pairs defined before the text is preprocessed.
        defines: &'a [(&'a str, &'a str)],
    },
    /// A code object compiled by aqueduct-shaderc with its reflection JSON.
    Precompiled {
        /// The code object's bytes.
        code: Cow<'a, [u8]>,
        /// The reflection JSON aqueduct-shaderc wrote beside the object.
        reflection: Cow<'a, str>,
    },
}

/// Describes a shader module.
pub struct ShaderModuleDescriptor<'a> {
    /// The module's label, for error messages and debugging.
    pub label: crate::Label<'a>,
    /// The module's code.
    pub source: ShaderSource<'a>,
}

/// Build a [`ShaderModuleDescriptor`] for a precompiled shader:
/// `include_shader!("shaders/gfx1100/hello")` embeds `hello.co` and
/// `hello.reflect.json`.
#[macro_export]
macro_rules! include_shader {
    ($path:literal) => {
        $crate::ShaderModuleDescriptor {
            label: Some($path),
            source: $crate::ShaderSource::Precompiled {
                code: ::std::borrow::Cow::Borrowed(include_bytes!(concat!($path, ".co"))),
                reflection: ::std::borrow::Cow::Borrowed(include_str!(concat!(
                    $path,
                    ".reflect.json"
                ))),
            },
        }
    };
}

/// How a binding reaches the kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ShaderBinding {
    pub group: u32,
    pub binding: u32,
    pub ty: BufferBindingType,
    /// Whether `ty` is exact (WGSL) or only a hint (raw pointers accept any
    /// buffer binding type).
    pub exact: bool,
    /// Index of the pointer among the kernel's explicit arguments.
    pub arg_index: usize,
    /// Explicit index and byte size of the binding-size argument.
    pub size_arg: Option<(usize, u32)>,
    pub min_binding_size: u64,
    /// A texture binding: the layout entry type it needs (`arg_index` is
    /// then the 32-byte image descriptor argument).
    pub texture: Option<wgpu_types::BindingType>,
    /// A sampler binding (`arg_index` is then the 16-byte S# argument).
    pub sampler: Option<SamplerUse>,
}

/// What a shader's sampler binding declares and samples.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub(crate) struct SamplerUse {
    /// `sampler_comparison` (true) or `sampler`.
    pub comparison: bool,
    /// The (group, binding) of each texture the entry point samples with
    /// it (the pairs wgpu-core's filtering rule checks).
    #[serde(default)]
    pub textures: Vec<[u32; 2]>,
}

impl ShaderBinding {
    /// Whether the entry point samples texture (`group`, `binding`) with
    /// any of `bindings`' samplers.
    pub(crate) fn sampled_by_any(bindings: &[ShaderBinding], group: u32, binding: u32) -> bool {
        bindings
            .iter()
            .filter_map(|b| b.sampler.as_ref())
            .any(|s| s.textures.contains(&[group, binding]))
    }
}

/// A by-value kernel argument fed from the immediates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ImmediateArg {
    pub arg_index: usize,
    pub offset: u32,
    pub size: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct EntryPoint {
    pub name: String,
    /// The executable the kernel lives in (kept alive by pipelines and
    /// submissions that use it).
    pub executable: Arc<Executable>,
    pub kernel: Kernel,
    pub bindings: Vec<ShaderBinding>,
    pub immediates: Vec<ImmediateArg>,
    pub immediate_size: u32,
    /// The 4-byte slots of the immediates the entry point reads (bit n:
    /// bytes 4n..4n + 4), which a dispatch needs set; 0 for raw kernels,
    /// whose unset immediates read as zero.
    pub immediate_slots: u64,
    pub workgroup_size: [u32; 3],
    /// Offset of hidden_block_count_x, if present.
    pub block_count_offset: Option<u32>,
}

#[derive(Debug)]
pub(crate) struct ShaderModuleInner {
    pub device: DeviceId,
    pub label: Option<String>,
    pub entry_points: Vec<EntryPoint>,
    /// The WGSL source of a module made from text: pipelines with override
    /// constants (or a module whose overrides have no defaults) resolve
    /// their own variant from it.
    pub wgsl: Option<Arc<crate::wgsl::WgslSource>>,
    /// A WGSL module translated but not yet compiled: it waits in the
    /// device's pending set until a pipeline needs it (`crate::wgsl`), and
    /// leaves the set when dropped.
    pub deferred: Option<crate::wgsl::PendingModule>,
    /// Why the module is invalid, if it is.
    pub error: Option<ShaderModuleError>,
    /// Kernels of the code object that cannot be entry points, and why
    /// (`EntryPointError::Unusable`).
    pub unusable: Vec<EntryPointError>,
}

/// A loaded shader module (cheap to clone).
#[derive(Clone, Debug)]
pub struct ShaderModule {
    pub(crate) inner: Arc<ShaderModuleInner>,
}

impl PartialEq for ShaderModule {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl ShaderModule {
    /// `Ok` when the module belongs to `device`.
    pub(crate) fn check_device(&self, device: &DeviceShared) -> Result<(), DeviceMismatch> {
        same_device(
            ObjectKind::ShaderModule,
            self.inner.label.as_deref(),
            self.inner.device,
            device.id,
        )
    }

    /// Entry point names.
    pub fn entry_points(&self) -> Vec<String> {
        if let Some(deferred) = &self.inner.deferred {
            return deferred.entry_names();
        }
        self.inner
            .entry_points
            .iter()
            .map(|e| e.name.clone())
            .collect()
    }

    pub(crate) fn entry_point(&self, name: Option<&str>) -> Result<&EntryPoint, EntryPointError> {
        let unusable = self.inner.unusable.iter().find(
            |e| matches!((e, name), (EntryPointError::Unusable { name: u, .. }, Some(n)) if u == n),
        );
        match unusable {
            Some(e) => Err(e.clone()),
            None => select_entry_point(&self.inner.entry_points, name),
        }
    }
}

/// The entry point named `name` among `eps`, or with no name the only one.
pub(crate) fn select_entry_point<'a>(
    eps: &'a [EntryPoint],
    name: Option<&str>,
) -> Result<&'a EntryPoint, EntryPointError> {
    let names = || eps.iter().map(|e| e.name.clone()).collect::<Vec<_>>();
    match name {
        Some(n) => eps
            .iter()
            .find(|e| e.name == n)
            .ok_or_else(|| EntryPointError::NotFound {
                name: n.to_string(),
                available: names(),
            }),
        None if eps.len() == 1 => Ok(&eps[0]),
        None => Err(EntryPointError::Ambiguous { available: names() }),
    }
}

/// The reflection schema (version 1) written by aqueduct-shaderc.
#[derive(Deserialize)]
struct Reflection {
    version: u32,
    entry_points: Vec<EntryReflection>,
    /// Hex SHA-256 of the WGSL source (newer aqueduct-shaderc).
    #[serde(default)]
    source_hash: Option<String>,
    /// Override values the object was specialised with (`--define`), as a
    /// map `{name: value}` or a list of `[name, value]` pairs.
    #[serde(default, alias = "defines")]
    constants: Option<serde_json::Value>,
}

/// A loaded aqueduct-shaderc object: its executable, entry points and the
/// key it answers to for run-time WGSL (when its reflection has one).
pub(crate) struct LoadedPrecompiled {
    pub executable: Arc<Executable>,
    pub entry_points: Vec<EntryPoint>,
    pub source_hash: Option<String>,
    pub constants: Vec<(String, f64)>,
}

fn reflected_constants(
    value: Option<&serde_json::Value>,
) -> Result<Vec<(String, f64)>, ReflectionError> {
    let bad = || ReflectionError::BadConstants;
    let number = |v: &serde_json::Value| match v {
        serde_json::Value::Bool(b) => Some(f64::from(u8::from(*b))),
        other => other.as_f64(),
    };
    match value {
        None | Some(serde_json::Value::Null) => Ok(Vec::new()),
        Some(serde_json::Value::Object(map)) => map
            .iter()
            .map(|(k, v)| number(v).map(|n| (k.clone(), n)).ok_or_else(bad))
            .collect(),
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .map(|item| match item.as_array().map(Vec::as_slice) {
                Some([serde_json::Value::String(k), v]) => {
                    number(v).map(|n| (k.clone(), n)).ok_or_else(bad)
                }
                _ => Err(bad()),
            })
            .collect(),
        Some(_) => Err(bad()),
    }
}

#[derive(Deserialize)]
struct EntryReflection {
    name: String,
    kernel: String,
    workgroup_size: [u32; 3],
    bindings: Vec<BindingReflection>,
    /// The entry point's `var<immediate>` (absent: none).
    #[serde(default)]
    immediates: Option<ImmediateReflection>,
}

/// A by-value argument holding immediate bytes `offset..offset + size`,
/// and the 4-byte slots the entry point reads (bit n: bytes 4n..4n + 4).
#[derive(Deserialize)]
struct ImmediateReflection {
    arg: String,
    offset: u32,
    size: u32,
    #[serde(default)]
    slots: u64,
}

#[derive(Deserialize)]
struct BindingReflection {
    group: u32,
    binding: u32,
    kind: String,
    min_binding_size: u64,
    arg: String,
    size_arg: Option<String>,
    /// Texture bindings: dimension, access, format or sample type.
    #[serde(default)]
    texture: Option<crate::texture_reflection::TextureReflection>,
    /// Sampler bindings: whether it compares, the textures it samples.
    #[serde(default)]
    sampler: Option<SamplerUse>,
}

const DEFAULT_WORKGROUP: [u32; 3] = [64, 1, 1];

fn explicit_index(kernel: &Kernel, name: &str) -> Option<(usize, u32)> {
    kernel
        .info
        .explicit_args()
        .enumerate()
        .find(|(_, a)| a.name.as_deref() == Some(name))
        .map(|(i, a)| (i, a.size))
}

fn hidden_offset(kernel: &Kernel, kind: ValueKind) -> Option<u32> {
    kernel
        .info
        .args
        .iter()
        .find(|a| a.value_kind == kind)
        .map(|a| a.offset)
}

fn workgroup_of(kernel: &Kernel, default: Option<[u32; 3]>) -> [u32; 3] {
    kernel
        .info
        .reqd_workgroup_size
        .or(default)
        .unwrap_or(DEFAULT_WORKGROUP)
}

/// Entry points of a raw code object: pointers → bindings, values → immediates.
fn raw_entry_point(
    executable: &Arc<Executable>,
    kernel: Kernel,
    default_wg: Option<[u32; 3]>,
) -> Result<EntryPoint, ShaderLoadError> {
    let mut bindings = Vec::new();
    let mut immediates = Vec::new();
    let mut imm_end = 0u32;
    for (i, arg) in kernel.info.explicit_args().enumerate() {
        match arg.value_kind {
            ValueKind::GlobalBuffer => {
                let read_only = arg.is_const
                    || arg.actual_access.as_deref() == Some("read_only")
                    || arg.access.as_deref() == Some("read_only");
                bindings.push(ShaderBinding {
                    group: 0,
                    binding: bindings.len() as u32,
                    ty: BufferBindingType::Storage { read_only },
                    exact: false,
                    arg_index: i,
                    size_arg: None,
                    min_binding_size: 0,
                    texture: None,
                    sampler: None,
                });
            }
            ValueKind::ByValue => {
                let align = arg.size.clamp(1, 8).next_power_of_two();
                let offset = imm_end.next_multiple_of(align);
                immediates.push(ImmediateArg {
                    arg_index: i,
                    offset,
                    size: arg.size,
                });
                imm_end = offset + arg.size;
            }
            ref other => {
                return Err(ShaderLoadError::UnsupportedArgument {
                    kernel: kernel.info.name.clone(),
                    index: i,
                    kind: other.as_str().to_string(),
                });
            }
        }
    }
    Ok(EntryPoint {
        name: kernel.info.name.clone(),
        executable: executable.clone(),
        workgroup_size: workgroup_of(&kernel, default_wg),
        block_count_offset: hidden_offset(&kernel, ValueKind::HiddenBlockCountX),
        bindings,
        immediates,
        immediate_size: imm_end.next_multiple_of(4),
        immediate_slots: 0,
        kernel,
    })
}

fn reflected_entry_point(
    executable: &Arc<Executable>,
    kernel: Kernel,
    e: &EntryReflection,
) -> Result<EntryPoint, ReflectionError> {
    // Run-time WGSL compiles in batches whose symbols carry a module prefix
    // (`m1.main`); fault reports, traces and sanitizer findings name the
    // entry point the program wrote.
    let kernel = if e.kernel != e.name {
        Kernel {
            name: Arc::from(e.name.as_str()),
            ..kernel
        }
    } else {
        kernel
    };
    let mut bindings = Vec::new();
    for b in &e.bindings {
        let mut texture = None;
        let mut sampler = None;
        let ty = match b.kind.as_str() {
            "storage_read" => BufferBindingType::Storage { read_only: true },
            "storage_read_write" => BufferBindingType::Storage { read_only: false },
            "uniform" => BufferBindingType::Uniform,
            "storage_texture" | "sampled_texture" => {
                let layout_ty = b
                    .texture
                    .as_ref()
                    .and_then(|t| t.binding_type())
                    .ok_or_else(|| ReflectionError::UnknownBindingKind {
                        kind: format!("{} {:?}", b.kind, b.texture),
                    })?;
                texture = Some(layout_ty);
                let write = matches!(
                    layout_ty,
                    wgpu_types::BindingType::StorageTexture {
                        access: wgpu_types::StorageTextureAccess::WriteOnly
                            | wgpu_types::StorageTextureAccess::ReadWrite,
                        ..
                    }
                );
                BufferBindingType::Storage { read_only: !write }
            }
            "sampler" => {
                let s = b
                    .sampler
                    .clone()
                    .ok_or_else(|| ReflectionError::UnknownBindingKind {
                        kind: "sampler without its `sampler` object".to_string(),
                    })?;
                sampler = Some(s);
                // Not a buffer: the S# is a by-value argument no access
                // reads from memory.
                BufferBindingType::Storage { read_only: true }
            }
            other => {
                return Err(ReflectionError::UnknownBindingKind {
                    kind: other.to_string(),
                });
            }
        };
        let (arg_index, _) =
            explicit_index(&kernel, &b.arg).ok_or_else(|| ReflectionError::MissingArgument {
                kernel: kernel.info.name.clone(),
                arg: b.arg.clone(),
            })?;
        let size_arg = match &b.size_arg {
            Some(name) => Some(explicit_index(&kernel, name).ok_or_else(|| {
                ReflectionError::MissingSizeArgument {
                    kernel: kernel.info.name.clone(),
                    arg: name.clone(),
                }
            })?),
            None => None,
        };
        bindings.push(ShaderBinding {
            group: b.group,
            binding: b.binding,
            ty,
            exact: true,
            arg_index,
            size_arg,
            min_binding_size: b.min_binding_size,
            texture,
            sampler,
        });
    }
    let mut immediates = Vec::new();
    let mut immediate_size = 0;
    let mut immediate_slots = 0;
    if let Some(imm) = &e.immediates {
        let (arg_index, arg_size) =
            explicit_index(&kernel, &imm.arg).ok_or_else(|| ReflectionError::MissingArgument {
                kernel: kernel.info.name.clone(),
                arg: imm.arg.clone(),
            })?;
        if arg_size != imm.size {
            return Err(ReflectionError::ImmediateSize {
                kernel: kernel.info.name.clone(),
                arg: imm.arg.clone(),
                reflected: imm.size,
                kernel_size: arg_size,
            });
        }
        immediates.push(ImmediateArg {
            arg_index,
            offset: imm.offset,
            size: imm.size,
        });
        immediate_size = (imm.offset + imm.size).next_multiple_of(4);
        immediate_slots = imm.slots;
    }
    let bound: usize = bindings.len()
        + bindings.iter().filter(|b| b.size_arg.is_some()).count()
        + immediates.len();
    let explicit = kernel.info.explicit_args().count();
    if explicit != bound {
        return Err(ReflectionError::ArgumentCount {
            kernel: kernel.info.name.clone(),
            explicit,
            bound,
        });
    }
    Ok(EntryPoint {
        name: e.name.clone(),
        executable: executable.clone(),
        workgroup_size: e.workgroup_size,
        block_count_offset: hidden_offset(&kernel, ValueKind::HiddenBlockCountX),
        bindings,
        immediates,
        immediate_size,
        immediate_slots,
        kernel,
    })
}

fn load(runtime: &Runtime, agent: &Agent, code: &[u8]) -> Result<Arc<Executable>, ShaderLoadError> {
    runtime
        .load_executable(agent, code)
        .map(Arc::new)
        .map_err(|e| ShaderLoadError::Load {
            target: agent.name.clone(),
            source: Arc::new(e),
        })
}

/// Load an aqueduct-shaderc code object and its reflection JSON: the
/// executable and one entry point per reflected kernel (bindings checked
/// against the kernel's arguments).
pub(crate) fn load_precompiled(
    runtime: &Runtime,
    agent: &Agent,
    code: &[u8],
    reflection: &str,
) -> Result<LoadedPrecompiled, ShaderLoadError> {
    let r = parse_reflection(reflection)?;
    let exe = load(runtime, agent, code)?;
    precompiled_in(exe, r)
}

/// The entry points an aqueduct-shaderc reflection names in an executable
/// already loaded (a code object several modules share).
#[cfg_attr(not(feature = "wgsl"), allow(dead_code))]
pub(crate) fn load_precompiled_in(
    executable: Arc<Executable>,
    reflection: &str,
) -> Result<LoadedPrecompiled, ShaderLoadError> {
    precompiled_in(executable, parse_reflection(reflection)?)
}

/// Load a code object (as `ShaderLoadError::Load` on failure).
#[cfg_attr(not(feature = "wgsl"), allow(dead_code))]
pub(crate) fn load_executable(
    runtime: &Runtime,
    agent: &Agent,
    code: &[u8],
) -> Result<Arc<Executable>, ShaderLoadError> {
    load(runtime, agent, code)
}

fn parse_reflection(reflection: &str) -> Result<Reflection, ShaderLoadError> {
    let r: Reflection =
        serde_json::from_str(reflection).map_err(|e| ReflectionError::Malformed(Arc::new(e)))?;
    if r.version != 1 {
        return Err(ReflectionError::UnsupportedVersion { version: r.version }.into());
    }
    Ok(r)
}

fn precompiled_in(
    exe: Arc<Executable>,
    r: Reflection,
) -> Result<LoadedPrecompiled, ShaderLoadError> {
    let constants = reflected_constants(r.constants.as_ref())?;
    let mut eps = Vec::new();
    for e in &r.entry_points {
        let kernel = exe
            .kernel(&e.kernel)
            .map_err(|e| ShaderLoadError::Kernel(Arc::new(e)))?;
        eps.push(reflected_entry_point(&exe, kernel, e)?);
    }
    Ok(LoadedPrecompiled {
        executable: exe,
        entry_points: eps,
        source_hash: r.source_hash,
        constants,
    })
}

/// `source` written as WGSL (see the module docs), its errors named by
/// `language` and located in a file named after `label`.
#[cfg(feature = "wgsl")]
fn translate(
    source: aqueduct_shaderc::Source<'_>,
    language: ShaderLanguage,
    label: Option<&str>,
) -> Result<String, ShaderLoadError> {
    let file = label.unwrap_or(match language {
        ShaderLanguage::SpirV => "shader.spv",
        ShaderLanguage::Glsl => "shader.comp",
    });
    aqueduct_shaderc::to_wgsl(&source, file).map_err(|e| ShaderLoadError::Translate {
        language,
        source: Arc::new(e),
    })
}

pub(crate) fn create(device: &DeviceShared, desc: ShaderModuleDescriptor<'_>) -> ShaderModule {
    let label = desc.label.map(str::to_string);
    let mut wgsl = None;
    let mut deferred = None;
    let mut unusable = Vec::new();
    let result: Result<Vec<EntryPoint>, ShaderLoadError> = (|| {
        let mut resolve_wgsl = |text: &str| {
            let source = Arc::new(crate::wgsl::WgslSource::new(text, label.as_deref()));
            let resolved = crate::wgsl::resolve_module(device, &source);
            wgsl = Some(source);
            resolved.map(|r| {
                deferred = r.deferred;
                r.entry_points
            })
        };
        match desc.source {
            ShaderSource::Wgsl(text) => resolve_wgsl(&text),
            #[cfg(feature = "wgsl")]
            ShaderSource::SpirV(words) => {
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                let text = translate(
                    aqueduct_shaderc::Source::SpirV(&bytes),
                    ShaderLanguage::SpirV,
                    label.as_deref(),
                )?;
                resolve_wgsl(&text)
            }
            #[cfg(feature = "wgsl")]
            ShaderSource::Glsl { shader, defines } => {
                let text = translate(
                    aqueduct_shaderc::Source::Glsl {
                        text: &shader,
                        defines,
                    },
                    ShaderLanguage::Glsl,
                    label.as_deref(),
                )?;
                resolve_wgsl(&text)
            }
            ShaderSource::CodeObject {
                code,
                workgroup_size,
            } => {
                if let Some(size) = workgroup_size
                    && size.contains(&0)
                {
                    return Err(ShaderLoadError::ZeroWorkgroupSize { size });
                }
                let exe = load(&device.runtime, &device.agent, &code)?;
                let mut eps = Vec::new();
                let mut first_unusable = None;
                for info in exe.kernels() {
                    let kernel = exe
                        .kernel(&info.name)
                        .map_err(|e| ShaderLoadError::Kernel(Arc::new(e)))?;
                    match raw_entry_point(&exe, kernel, workgroup_size) {
                        Ok(ep) => eps.push(ep),
                        // One kernel the facade cannot bind leaves the others usable.
                        Err(ShaderLoadError::UnsupportedArgument {
                            kernel,
                            index,
                            kind,
                        }) => {
                            unusable.push(EntryPointError::Unusable {
                                name: kernel.clone(),
                                index,
                                kind: kind.clone(),
                            });
                            first_unusable.get_or_insert(ShaderLoadError::UnsupportedArgument {
                                kernel,
                                index,
                                kind,
                            });
                        }
                        Err(e) => return Err(e),
                    }
                }
                match first_unusable {
                    Some(e) if eps.is_empty() => Err(e),
                    _ => Ok(eps),
                }
            }
            ShaderSource::Precompiled { code, reflection } => {
                load_precompiled(&device.runtime, &device.agent, &code, &reflection)
                    .map(|l| l.entry_points)
            }
        }
    })();
    match result {
        Ok(entry_points) => ShaderModule {
            inner: Arc::new(ShaderModuleInner {
                device: device.id,
                label: desc.label.map(str::to_string),
                entry_points,
                wgsl,
                deferred,
                error: None,
                unusable,
            }),
        },
        Err(source) => {
            let error = ShaderModuleError::Create { label, source };
            device.report(error.clone());
            ShaderModule {
                inner: Arc::new(ShaderModuleInner {
                    device: device.id,
                    label: desc.label.map(str::to_string),
                    entry_points: Vec::new(),
                    wgsl: None,
                    deferred: None,
                    error: Some(error),
                    unusable: Vec::new(),
                }),
            }
        }
    }
}
