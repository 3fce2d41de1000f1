//! Front end: WGSL, SPIR-V or GLSL → validated naga module, with pipeline-
//! overridable constants specialised. Errors keep naga's rendering.

use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};

use crate::diagnostic;
use crate::error::CompileError;

/// Shader source text or binary.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    Wgsl(&'a str),
    /// A SPIR-V module (little-endian words as bytes).
    SpirV(&'a [u8]),
    /// A GLSL compute shader (`#version 450` and later; its entry point is
    /// `main`), with the preprocessor's `#define`s as (name, value) pairs.
    Glsl {
        text: &'a str,
        defines: &'a [(&'a str, &'a str)],
    },
}

impl<'a> From<&'a str> for Source<'a> {
    fn from(text: &'a str) -> Self {
        Source::Wgsl(text)
    }
}

impl Source<'_> {
    /// The text errors point into (none for SPIR-V).
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Source::Wgsl(t) | Source::Glsl { text: t, .. } => Some(t),
            Source::SpirV(_) => None,
        }
    }
}

fn validate(
    module: &naga::Module,
    source: &Source<'_>,
    file: &str,
    capabilities: Capabilities,
) -> Result<ModuleInfo, CompileError> {
    Validator::new(ValidationFlags::all(), capabilities)
        .validate(module)
        .map_err(|e| {
            let rendered = match source.text() {
                Some(t) => render_with_span(&e, t, file),
                None => format!("{file}: {}", e.as_inner()),
            };
            let missing = missing_capabilities(module, capabilities);
            if missing.is_empty() {
                CompileError::Validation { rendered }
            } else {
                CompileError::MissingCapabilities { missing, rendered }
            }
        })
}

/// The capabilities outside `given` that `module` needs to validate: empty
/// when it is invalid for another reason too. naga's error names one
/// capability deep inside its error tree; this asks the validator instead
/// (each capability left out in turn), which runs only for a module that
/// already failed.
fn missing_capabilities(module: &naga::Module, given: Capabilities) -> Capabilities {
    let all = Capabilities::all();
    if given == all
        || Validator::new(ValidationFlags::all(), all)
            .validate(module)
            .is_err()
    {
        return Capabilities::empty();
    }
    (all - given)
        .iter()
        .filter(|&cap| {
            Validator::new(ValidationFlags::all(), all - cap)
                .validate(module)
                .is_err()
        })
        .fold(Capabilities::empty(), |acc, cap| acc | cap)
}

/// Parse and validate `source` with `capabilities`, then specialise
/// overrides with `defines` (by name or numeric id) for `entry` (or all
/// entry points).
pub(crate) fn load(
    source: &Source<'_>,
    file: &str,
    entry: Option<&str>,
    defines: &[(String, f64)],
    capabilities: Capabilities,
) -> Result<(naga::Module, ModuleInfo), CompileError> {
    let mut module = parse(source, file)?;
    let mut info = validate(&module, source, file, capabilities)?;
    // Only compute entry points become kernels: the overrides the others
    // use need no value (naga's specialiser wants every override its
    // entry points use). With `entry`, the specialiser keeps that one.
    if entry.is_none()
        && module
            .entry_points
            .iter()
            .any(|e| e.stage != naga::ShaderStage::Compute)
    {
        module
            .entry_points
            .retain(|e| e.stage == naga::ShaderStage::Compute);
        info = validate(&module, source, file, capabilities)?;
    }
    let mut constants = naga::back::PipelineConstants::default();
    for (name, value) in defines {
        constants.insert(name.clone(), *value);
    }
    let stage_entry = entry.map(|e| (naga::ShaderStage::Compute, e));
    if let Some(name) = entry {
        check_entry(&module, name, file)?;
    }
    let (module, info) =
        naga::back::pipeline_constants::process_overrides(&module, &info, stage_entry, &constants)
            .map_err(|e| CompileError::Override {
                message: match (&e, source.text()) {
                    // e.g. an override-sized array whose length became 0:
                    // point at the type in the source.
                    (
                        naga::back::pipeline_constants::PipelineConstantError::ValidationError(v),
                        Some(text),
                    ) => render_with_span(v, text, file),
                    _ => e.to_string(),
                },
            })?;
    Ok((module.into_owned(), info.into_owned()))
}

/// The naga module of `source`, unvalidated.
fn parse(source: &Source<'_>, file: &str) -> Result<naga::Module, CompileError> {
    match *source {
        Source::Wgsl(text) => naga::front::wgsl::parse_str(text).map_err(|e| CompileError::Parse {
            rendered: diagnostic::render(text, file, e.message(), e.labels(), || {
                e.emit_to_string_with_path(text, file)
            }),
        }),
        Source::SpirV(bytes) => {
            let options = naga::front::spv::Options::default();
            naga::front::spv::parse_u8_slice(bytes, &options).map_err(|e| CompileError::Parse {
                rendered: format!("{file}: {e}"),
            })
        }
        Source::Glsl { text, defines } => {
            let mut options = naga::front::glsl::Options::from(naga::ShaderStage::Compute);
            for (name, value) in defines {
                options
                    .defines
                    .insert((*name).to_string(), (*value).to_string());
            }
            naga::front::glsl::Frontend::default()
                .parse(&options, text)
                .map_err(|e| CompileError::Parse {
                    rendered: format!("{file}: {}", e.emit_to_string_with_path(text, file)),
                })
        }
    }
}

/// `source` written as WGSL by naga's WGSL back end: how SPIR-V and GLSL
/// shaders reach the WGSL path (its cache, batching and reflection). The
/// module is validated first, so an invalid shader reports naga's error for
/// its own language; overrides (SPIR-V specialization constants) keep their
/// ids as `@id` attributes.
pub fn to_wgsl(source: &Source<'_>, file: &str) -> Result<String, CompileError> {
    let module = parse(source, file)?;
    // Every capability: the WGSL path validates the result against the
    // device's features.
    let info = validate(&module, source, file, Capabilities::all())?;
    naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty()).map_err(
        |e| CompileError::NotExpressibleInWgsl {
            file: file.to_string(),
            message: e.to_string(),
        },
    )
}

/// naga's rendering of a spanned error, bounded in cost for large sources.
pub(crate) fn render_with_span<E: std::error::Error>(
    e: &naga::WithSpan<E>,
    source: &str,
    file: &str,
) -> String {
    let labels = e.spans().map(|(span, label)| (*span, label.as_str()));
    diagnostic::render(source, file, &e.as_inner().to_string(), labels, || {
        e.emit_to_string_with_path(source, file)
    })
}

/// An error unless `module` has a compute entry point `name`.
fn check_entry(module: &naga::Module, name: &str, file: &str) -> Result<(), CompileError> {
    let computes: Vec<&str> = module
        .entry_points
        .iter()
        .filter(|e| e.stage == naga::ShaderStage::Compute)
        .map(|e| e.name.as_str())
        .collect();
    if computes.is_empty() {
        return Err(CompileError::NoComputeEntryPoint { file: file.into() });
    }
    if !computes.contains(&name) {
        return Err(CompileError::EntryPointNotFound {
            name: name.into(),
            available: computes.join(", "),
        });
    }
    Ok(())
}
