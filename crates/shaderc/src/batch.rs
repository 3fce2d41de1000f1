//! Batch compilation: several translated modules become one LLVM module,
//! compiled and linked once (libLLVM-19 in process, or one clang-19 and
//! one ld.lld-19 run) into one code object. Most of a small kernel's
//! compile time is per-module set-up (and the tools' start-up), so a batch
//! of many modules costs little more than one.
//!
//! Each module is translated with its own `Options::symbol_prefix`, so its
//! kernels, helpers and workgroup variables are `PREFIX.name`; the IR has
//! no attribute groups or numbered metadata, so modules concatenate as
//! they are and only the intrinsic `declare`s are merged. Each module's
//! reflection names its kernel symbols in the shared object.
//!
//! A module that fails does not fail the others: translation errors stay
//! with their module ([`compile_batch`]), and when LLVM or the link fails on
//! the batch every module is compiled on its own, so the error reaches the
//! module that caused it.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::error::CompileError;
use crate::{Options, Reflection, Source, Toolchain, Translated, bundle, translate};

/// A code object a batch produced.
#[derive(Clone, Debug)]
pub struct BatchObject {
    /// A plain code object (one target) or an offload bundle (several).
    pub code_object: Vec<u8>,
    /// The per-target code objects, in `Options::targets` order.
    pub objects: Vec<(String, Vec<u8>)>,
}

/// A module of a batch that compiled.
#[derive(Clone, Debug)]
pub struct BatchMember {
    /// The index in [`BatchCompiled::objects`] of the object holding the
    /// module's kernels (shared with the other modules of the batch, or
    /// the module's own when the batch fell back to one compile per module).
    pub object: usize,
    /// The module's reflection; each entry point's `kernel` is its symbol
    /// in that object (`PREFIX.entry`).
    pub reflection: Reflection,
}

/// What a batch compile produced.
#[derive(Debug, Default)]
pub struct BatchCompiled {
    pub objects: Vec<BatchObject>,
    /// One result per input module, in input order.
    pub modules: Vec<Result<BatchMember, CompileError>>,
}

/// Join translated modules into one LLVM IR module. Fails when two
/// modules share a symbol prefix (their symbols would collide).
pub fn link_ir(modules: &[&Translated]) -> Result<String, CompileError> {
    if let Some(clash) = prefix_clashes(modules).into_iter().flatten().next() {
        return Err(clash);
    }
    let mut declares = BTreeSet::new();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "; aqueduct-shaderc: batch of {} modules",
        modules.len()
    );
    out.push_str("source_filename = \"batch\"\n");
    out.push_str("target triple = \"amdgcn-amd-amdhsa\"\n\n");
    for module in modules {
        for line in module.llvm_ir.lines() {
            if line.starts_with("declare ") {
                declares.insert(line);
            } else if !(line.starts_with("; aqueduct-shaderc:")
                || line.starts_with("source_filename ")
                || line.starts_with("target triple "))
            {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    for line in declares {
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

/// Per module: the clash error when an earlier module has its prefix.
fn prefix_clashes(modules: &[&Translated]) -> Vec<Option<CompileError>> {
    modules
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let first = modules[..i]
                .iter()
                .position(|o| o.symbol_prefix == m.symbol_prefix)?;
            Some(CompileError::SymbolPrefixClash {
                module: i,
                first,
                prefix: m.symbol_prefix.clone(),
            })
        })
        .collect()
}

/// Compile translated modules together: one LLVM compile and one link per
/// target for the whole batch. `options` gives the targets, the
/// optimisation level, the tools' directory and the LLVM mode (its other
/// fields are not used). A module whose symbol prefix an earlier module already has gets
/// [`CompileError::SymbolPrefixClash`]; when the batch does not compile,
/// each module is compiled alone and gets its own result.
pub fn compile_translated(modules: &[&Translated], options: &Options) -> BatchCompiled {
    let mut results: Vec<Option<Result<BatchMember, CompileError>>> = prefix_clashes(modules)
        .into_iter()
        .map(|clash| clash.map(Err))
        .collect();
    let members: Vec<usize> = (0..modules.len())
        .filter(|&i| results[i].is_none())
        .collect();
    let mut objects = Vec::new();
    if members.len() > 1 {
        let batch: Vec<&Translated> = members.iter().map(|&i| modules[i]).collect();
        match link_ir(&batch).and_then(|ir| compile_ir(&ir, "batch", options)) {
            Ok(object) => {
                objects.push(object);
                for &i in &members {
                    results[i] = Some(Ok(BatchMember {
                        object: 0,
                        reflection: modules[i].reflection.clone(),
                    }));
                }
            }
            Err(e) => tracing::warn!(
                modules = members.len(),
                "a batch of shaders did not compile ({e}); compiling them one by one"
            ),
        }
    }
    for &i in &members {
        if results[i].is_some() {
            continue;
        }
        let module = modules[i];
        results[i] = Some(
            compile_ir(&module.llvm_ir, &stem_of(module), options).map(|object| {
                objects.push(object);
                BatchMember {
                    object: objects.len() - 1,
                    reflection: module.reflection.clone(),
                }
            }),
        );
    }
    BatchCompiled {
        objects,
        modules: results
            .into_iter()
            .map(|r| r.expect("every module has a result"))
            .collect(),
    }
}

/// Translate each module with its own options, then compile those that
/// translate together ([`compile_translated`] with `batch`'s targets,
/// optimisation level and tools). A module that does not translate gets
/// its own error; the others compile.
pub fn compile_batch(modules: &[(Source<'_>, Options)], batch: &Options) -> BatchCompiled {
    let translated: Vec<Result<Translated, CompileError>> = modules
        .iter()
        .map(|(source, options)| translate(*source, options))
        .collect();
    let ok: Vec<&Translated> = translated.iter().filter_map(|t| t.as_ref().ok()).collect();
    let mut compiled = compile_translated(&ok, batch);
    let mut results = std::mem::take(&mut compiled.modules).into_iter();
    compiled.modules = translated
        .into_iter()
        .map(|t| match t {
            Ok(_) => results.next().expect("one result per translated module"),
            Err(e) => Err(e),
        })
        .collect();
    compiled
}

/// The file stem a lone module's temporary files are named after.
fn stem_of(module: &Translated) -> String {
    std::path::Path::new(&module.reflection.source)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty())
        .unwrap_or("shader")
        .to_string()
}

/// Compile IR for every target of `options`.
pub(crate) fn compile_ir(
    ir: &str,
    stem: &str,
    options: &Options,
) -> Result<BatchObject, CompileError> {
    let tools = Toolchain::for_options(options)?;
    let mut objects = Vec::new();
    for target in &options.targets {
        let co = tools.compile_ir(ir, stem, target, options.opt_level)?;
        objects.push((target.clone(), co));
    }
    let code_object = match objects.as_slice() {
        [(_, only)] => only.clone(),
        many => bundle(many),
    };
    Ok(BatchObject {
        code_object,
        objects,
    })
}
