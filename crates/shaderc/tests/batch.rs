//! Batch compilation: modules compiled together into one code object run
//! on gfxsim as the separately compiled ones do, names the modules share
//! stay apart, and one module's failure (translation, clang, a clashing
//! symbol prefix) is that module's alone.

use aqueduct_shaderc::{
    BatchCompiled, CompileError, LlvmStage, Options, Reflection, Source, Toolchain, compile_batch,
    compile_translated, link_ir, translate,
};
use aqueduct_test_harness::shaderc::*;

#[path = "in_process/mod.rs"]
mod in_process;

fn llvm_or_skip(what: &str) -> bool {
    if Toolchain::available() {
        true
    } else {
        eprintln!("{what}: skipped (clang-19 / ld.lld-19 not installed)");
        false
    }
}

fn options(prefix: &str, file: &str) -> Options {
    Options {
        symbol_prefix: prefix.into(),
        file_name: file.into(),
        ..Options::default()
    }
}

fn wgsl(name: &str) -> String {
    let path = shaders_dir().join(format!("{name}.wgsl"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The object and reflection of module `index` of a batch.
fn member(batch: &BatchCompiled, index: usize) -> (&[u8], &Reflection) {
    let m = batch.modules[index]
        .as_ref()
        .unwrap_or_else(|e| panic!("module {index}: {e}"));
    (&batch.objects[m.object].code_object, &m.reflection)
}

/// Deterministic inputs for every binding of `main` (at least 4 KiB each).
fn inputs(reflection: &Reflection, seed: u64) -> Vec<Binding> {
    let ep = reflection.entry_point("main").expect("entry point main");
    let mut rng = Rng::new(seed);
    ep.bindings
        .iter()
        .map(|b| {
            let words = (b.min_binding_size.max(4096) / 4) as usize;
            // Small values keep data-dependent loops short.
            let data: Vec<u32> = rng.u32s(words).iter().map(|v| v % 1000).collect();
            (b.group, b.binding, bytes_of(&data))
        })
        .collect()
}

#[test]
fn batched_kernels_match_separately_compiled_ones() {
    if !llvm_or_skip("batched kernels") {
        return;
    }
    // Every module has an entry point `main`; control_flow has helper
    // functions and atomics_workgroup workgroup variables.
    let names = [
        "tests/copy_u32",
        "tests/control_flow",
        "tests/atomics_workgroup",
        "tests/int_div",
    ];
    let texts: Vec<String> = names.iter().map(|n| wgsl(n)).collect();
    let modules: Vec<(Source<'_>, Options)> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| (Source::Wgsl(t), options(&format!("m{i}"), names[i])))
        .collect();
    let batch = compile_batch(&modules, &Options::default());
    assert_eq!(batch.objects.len(), 1, "one code object for the batch");
    for (i, name) in names.iter().enumerate() {
        let (co, reflection) = member(&batch, i);
        let ep = reflection.entry_point("main").unwrap();
        assert_eq!(ep.kernel, format!("m{i}.main"));
        let (alone_co, alone_reflection) = checked_in(name, "gfx1100");
        let bindings = inputs(&alone_reflection, i as u64 + 1);
        // One workgroup: control_flow's second group would write
        // out[32..64] while the first writes out[i + 32] there, so with
        // two the result depends on the order the groups run in.
        let batched = run_code_object(co, reflection, "main", &bindings, [1, 1, 1])
            .unwrap_or_else(|e| panic!("{name} batched: {e}"));
        let alone = run_code_object(&alone_co, &alone_reflection, "main", &bindings, [1, 1, 1])
            .unwrap_or_else(|e| panic!("{name} alone: {e}"));
        assert_eq!(
            batched, alone,
            "{name}: batched and separate results differ"
        );
    }
}

/// A module whose helper, workgroup variable and entry point have the
/// same names as in every other module made by it.
fn same_names(scale: u32) -> String {
    format!(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> tile: array<u32, 64>;

fn f(x: u32) -> u32 {{
    return x * {scale}u;
}}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {{
    tile[63u - li] = f(gid.x);
    workgroupBarrier();
    out[gid.x] = tile[li];
}}
"
    )
}

#[test]
fn names_shared_by_modules_stay_apart() {
    if !llvm_or_skip("shared names") {
        return;
    }
    let texts = [same_names(3), same_names(5), same_names(7)];
    let modules: Vec<(Source<'_>, Options)> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| (Source::Wgsl(t), options(&format!("s{i}"), "same.wgsl")))
        .collect();
    let batch = compile_batch(&modules, &Options::default());
    assert_eq!(batch.objects.len(), 1);
    for (i, scale) in [3u32, 5, 7].into_iter().enumerate() {
        let (co, reflection) = member(&batch, i);
        let out = run_code_object(
            co,
            reflection,
            "main",
            &[(0, 0, vec![0; 128 * 4])],
            [2, 1, 1],
        )
        .unwrap();
        let got = u32s(&out[0]);
        for (g, value) in got.iter().enumerate() {
            let group_base = g / 64 * 64;
            let mirrored = group_base + 63 - g % 64;
            assert_eq!(*value, mirrored as u32 * scale, "module {i}, element {g}");
        }
    }
}

#[test]
fn a_module_that_does_not_translate_leaves_the_others_compiled() {
    if !llvm_or_skip("translation failure") {
        return;
    }
    let good = same_names(3);
    let bad = "@compute @workgroup_size(64) fn main() { let x: u32 = 1.5; }";
    let modules = vec![
        (Source::Wgsl(&good), options("a", "good.wgsl")),
        (Source::Wgsl(bad), options("b", "bad.wgsl")),
        (Source::Wgsl(&good), options("c", "good.wgsl")),
    ];
    let batch = compile_batch(&modules, &Options::default());
    assert_eq!(batch.objects.len(), 1);
    assert!(
        matches!(
            &batch.modules[1],
            Err(CompileError::Parse { rendered } | CompileError::Validation { rendered })
                if rendered.contains("bad.wgsl")
        ),
        "{:?}",
        batch.modules[1]
    );
    for i in [0, 2] {
        let (co, reflection) = member(&batch, i);
        let out = run_code_object(
            co,
            reflection,
            "main",
            &[(0, 0, vec![0; 64 * 4])],
            [1, 1, 1],
        )
        .unwrap();
        assert_eq!(u32s(&out[0])[0], 63 * 3, "module {i}");
    }
}

#[test]
fn a_batch_clang_rejects_falls_back_to_one_compile_per_module() {
    if !llvm_or_skip("clang fallback") {
        return;
    }
    let text = same_names(5);
    let mut translated: Vec<_> = ["p", "q", "r"]
        .iter()
        .map(|p| translate(Source::Wgsl(&text), &options(p, "same.wgsl")).unwrap())
        .collect();
    translated[1].llvm_ir.push_str("this line is not LLVM IR\n");
    let refs: Vec<_> = translated.iter().collect();
    let batch = compile_translated(&refs, &Options::default());
    match &batch.modules[1] {
        Err(CompileError::ToolFailed { tool, stderr, .. }) => {
            assert_eq!(tool, "clang-19");
            assert!(stderr.contains("same.ll"), "{stderr}");
        }
        Err(CompileError::LlvmFailed { stage, message }) => {
            assert_eq!(*stage, LlvmStage::Parse);
            assert!(message.contains("same.ll"), "{message}");
        }
        other => panic!("module 1: {other:?}"),
    }
    let objects: Vec<usize> = [0, 2]
        .iter()
        .map(|&i| batch.modules[i].as_ref().unwrap().object)
        .collect();
    assert_eq!(
        batch.objects.len(),
        2,
        "one object per module that compiled"
    );
    assert_ne!(objects[0], objects[1]);
    for i in [0, 2] {
        let (co, reflection) = member(&batch, i);
        let out = run_code_object(
            co,
            reflection,
            "main",
            &[(0, 0, vec![0; 64 * 4])],
            [1, 1, 1],
        )
        .unwrap();
        assert_eq!(u32s(&out[0])[1], 62 * 5, "module {i}");
    }
}

#[test]
fn modules_sharing_a_symbol_prefix_are_refused() {
    let text = same_names(2);
    let a = translate(Source::Wgsl(&text), &options("same", "a.wgsl")).unwrap();
    let b = translate(Source::Wgsl(&text), &options("same", "b.wgsl")).unwrap();
    assert!(matches!(
        link_ir(&[&a, &b]),
        Err(CompileError::SymbolPrefixClash { module: 1, first: 0, ref prefix }) if prefix == "same"
    ));
    let ir = link_ir(&[&a]).unwrap();
    assert!(ir.contains("@\"same.main\""), "{ir}");
    assert!(ir.contains("@same.f.0("), "{ir}");
    assert!(ir.contains("@same.wg."), "{ir}");
    if !llvm_or_skip("prefix clash") {
        return;
    }
    let batch = compile_translated(&[&a, &b], &Options::default());
    assert!(batch.modules[0].is_ok());
    assert!(matches!(
        batch.modules[1],
        Err(CompileError::SymbolPrefixClash { module: 1, .. })
    ));
}

#[test]
fn symbol_prefixes_must_be_plain_identifiers() {
    let text = same_names(2);
    for bad in ["9lives", "a.b", "a-b", "a b", "é"] {
        assert!(
            matches!(
                translate(Source::Wgsl(&text), &options(bad, "a.wgsl")),
                Err(CompileError::BadSymbolPrefix(ref p)) if p == bad
            ),
            "{bad}"
        );
    }
    let plain = translate(Source::Wgsl(&text), &options("", "a.wgsl")).unwrap();
    assert_eq!(plain.reflection.entry_points[0].kernel, "main");
    assert!(plain.llvm_ir.contains("@f.0("));
}
