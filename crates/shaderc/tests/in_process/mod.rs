//! In-process LLVM and the in-process linker against clang-19 + ld.lld-19:
//! the same shaders (several kernels per module, helpers, workgroup memory,
//! subgroups, constant tables reached through `.rodata` relocations) give
//! the same program headers and loaded bytes, hence the same `.text`,
//! kernel descriptors and dynamic symbols, on gfx1100, gfx942 and gfx90a;
//! the code objects run on gfxsim with the results computed on the host;
//! objects outside the linker's subset are refused with a typed error and
//! linked by ld.lld-19 instead.

use aqueduct_shaderc::link::{LinkError, link};
use aqueduct_shaderc::{LlvmMode, Toolchain, link_ir, translate};

use super::{llvm_or_skip, options, wgsl};
use aqueduct_test_harness::shaderc::*;

/// Both compilers, or None (skipped) without clang/lld or libLLVM-19.
fn toolchains(what: &str) -> Option<(Toolchain, Toolchain)> {
    if !llvm_or_skip(what) {
        return None;
    }
    let process = Toolchain::find_with(None, LlvmMode::Process).unwrap();
    match Toolchain::find_with(None, LlvmMode::InProcess) {
        Ok(in_process) => Some((in_process, process)),
        Err(e) => {
            eprintln!("{what}: skipped ({e})");
            None
        }
    }
}

/// The parts of an ELF-64 file these tests compare.
struct Elf<'a> {
    bytes: &'a [u8],
    sections: Vec<(String, u32, u64, u64, u64)>, // name, type, addr, offset, size
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
fn c_str(b: &[u8], at: usize) -> String {
    let end = b[at..].iter().position(|&c| c == 0).unwrap();
    String::from_utf8(b[at..at + end].to_vec()).unwrap()
}

impl<'a> Elf<'a> {
    fn parse(bytes: &'a [u8]) -> Elf<'a> {
        assert_eq!(&bytes[..4], b"\x7fELF");
        let shoff = u64_at(bytes, 40) as usize;
        let shnum = u16_at(bytes, 60) as usize;
        let shstr = shoff + 64 * u16_at(bytes, 62) as usize;
        let names_at = u64_at(bytes, shstr + 24) as usize;
        let sections = (0..shnum)
            .map(|i| {
                let h = shoff + 64 * i;
                (
                    c_str(bytes, names_at + u32_at(bytes, h) as usize),
                    u32_at(bytes, h + 4),
                    u64_at(bytes, h + 16),
                    u64_at(bytes, h + 24),
                    u64_at(bytes, h + 32),
                )
            })
            .collect();
        Elf { bytes, sections }
    }

    fn section(&self, name: &str) -> Option<&'a [u8]> {
        let (_, _, _, off, size) = self.sections.iter().find(|s| s.0 == name)?;
        Some(&self.bytes[*off as usize..(*off + *size) as usize])
    }

    fn section_addr(&self, name: &str) -> u64 {
        self.sections.iter().find(|s| s.0 == name).unwrap().2
    }

    /// The program header table and each PT_LOAD's file bytes.
    fn loaded(&self) -> (Vec<u8>, Vec<Vec<u8>>) {
        let phoff = u64_at(self.bytes, 32) as usize;
        let phnum = u16_at(self.bytes, 56) as usize;
        let table = self.bytes[phoff..phoff + 56 * phnum].to_vec();
        let segments = (0..phnum)
            .map(|i| phoff + 56 * i)
            .filter(|&h| u32_at(self.bytes, h) == 1)
            .map(|h| {
                let off = u64_at(self.bytes, h + 8) as usize;
                let filesz = u64_at(self.bytes, h + 32) as usize;
                self.bytes[off..off + filesz].to_vec()
            })
            .collect();
        (table, segments)
    }

    /// `.dynsym`: (name, info, other, section index, value, size).
    fn dynamic_symbols(&self) -> Vec<(String, u8, u8, u16, u64, u64)> {
        let strings = self.section(".dynstr").unwrap();
        self.section(".dynsym").unwrap()[24..]
            .chunks_exact(24)
            .map(|s| {
                (
                    c_str(strings, u32_at(s, 0) as usize),
                    s[4],
                    s[5],
                    u16_at(s, 6),
                    u64_at(s, 8),
                    u64_at(s, 16),
                )
            })
            .collect()
    }

    /// The 64-byte kernel descriptor `name.kd`, as loaded.
    fn descriptor(&self, kernel: &str) -> Vec<u8> {
        let kd = format!("{kernel}.kd");
        let (_, _, _, _, value, size) = self
            .dynamic_symbols()
            .into_iter()
            .find(|s| s.0 == kd)
            .unwrap_or_else(|| panic!("no {kd}"));
        assert_eq!(size, 64);
        let rodata = self.section(".rodata").unwrap();
        let at = (value - self.section_addr(".rodata")) as usize;
        rodata[at..at + 64].to_vec()
    }
}

/// Compile `ir` both ways for `target` and check the code objects agree
/// wherever a loader looks; returns the in-process one.
fn compare(ir: &str, stem: &str, target: &str, ours: &Toolchain, theirs: &Toolchain) -> Vec<u8> {
    let a = ours.compile_ir(ir, stem, target, 3).unwrap();
    let b = theirs.compile_ir(ir, stem, target, 3).unwrap();
    let (ea, eb) = (Elf::parse(&a), Elf::parse(&b));
    assert!(
        ea.section(".comment").is_none(),
        "{stem}/{target}: linked by ld.lld"
    );
    assert_eq!(a[..40], b[..40], "{stem}/{target}: ELF identification");
    assert_eq!(u32_at(&a, 48), u32_at(&b, 48), "{stem}/{target}: e_flags");
    assert_eq!(
        ea.section(".text"),
        eb.section(".text"),
        "{stem}/{target}: .text"
    );
    let symbols = ea.dynamic_symbols();
    assert_eq!(symbols, eb.dynamic_symbols(), "{stem}/{target}: .dynsym");
    for kernel in symbols.iter().filter(|s| s.1 & 0xf == 2).map(|s| &s.0) {
        assert_eq!(
            ea.descriptor(kernel),
            eb.descriptor(kernel),
            "{stem}/{target}: {kernel}.kd"
        );
    }
    let (table_a, mut segments_a) = ea.loaded();
    let (table_b, mut segments_b) = eb.loaded();
    assert_eq!(table_a, table_b, "{stem}/{target}: program headers");
    assert_eq!(segments_a.len(), segments_b.len());
    // The first segment holds the ELF header, whose section header table
    // offset and count differ (ld.lld adds `.comment`).
    for segments in [&mut segments_a, &mut segments_b] {
        segments[0][40..48].fill(0);
        segments[0][60..64].fill(0);
    }
    for (i, (sa, sb)) in segments_a.iter().zip(&segments_b).enumerate() {
        assert_eq!(sa.len(), sb.len(), "{stem}/{target}: PT_LOAD {i} size");
        let first = sa.iter().zip(sb).position(|(x, y)| x != y);
        assert_eq!(
            first, None,
            "{stem}/{target}: PT_LOAD {i} differs at this byte"
        );
    }
    a
}

/// The repository's test shaders joined into one batch module: several
/// kernels, helper functions, workgroup memory, subgroups, f16 and f64,
/// and enough symbols for a multi-bucket GNU hash table.
fn batch_ir() -> String {
    let names = [
        "tests/multi_entry",
        "tests/control_flow",
        "tests/atomics_workgroup",
        "tests/subgroup_reduce",
        "tests/switch_signed",
        "tests/matmul_tiled",
        "tests/f16_math",
        "tests/int64_float64",
        "tests/private_array",
        "tests/prefix_sum",
        "copy_bytes",
        "fill_u32",
    ];
    let texts: Vec<String> = names.iter().map(|n| wgsl(n)).collect();
    let translated: Vec<_> = texts
        .iter()
        .zip(names)
        .enumerate()
        .map(|(i, (t, n))| {
            translate(
                aqueduct_shaderc::Source::Wgsl(t),
                &options(&format!("m{i}"), n),
            )
            .unwrap()
        })
        .collect();
    link_ir(&translated.iter().collect::<Vec<_>>()).unwrap()
}

fn batch_matches(target: &str) {
    let Some((ours, theirs)) = toolchains("in-process batch") else {
        return;
    };
    compare(&batch_ir(), "batch", target, &ours, &theirs);
}

#[test]
fn in_process_batch_matches_lld_on_gfx1100() {
    batch_matches("gfx1100");
}

#[test]
fn in_process_batch_matches_lld_on_gfx942() {
    batch_matches("gfx942");
}

#[test]
fn in_process_batch_matches_lld_on_gfx90a() {
    batch_matches("gfx90a");
}

/// A kernel reading two constant tables (`.rodata` data reached through
/// `R_AMDGPU_REL32_LO`/`_HI` pairs against the section).
const TABLE_IR: &str = r#"target triple = "amdgcn-amd-amdhsa"

@table = internal addrspace(4) constant [16 x i32] [i32 3, i32 1, i32 4, i32 1, i32 5, i32 9, i32 2, i32 6, i32 5, i32 3, i32 5, i32 8, i32 9, i32 7, i32 9, i32 3], align 4
@wide = internal addrspace(1) constant [8 x i64] [i64 10, i64 20, i64 30, i64 40, i64 50, i64 60, i64 70, i64 80], align 8

define amdgpu_kernel void @lookup(ptr addrspace(1) %out) "amdgpu-flat-work-group-size"="64,64" {
entry:
  %id = call i32 @llvm.amdgcn.workitem.id.x()
  %i = and i32 %id, 15
  %p = getelementptr inbounds [16 x i32], ptr addrspace(4) @table, i32 0, i32 %i
  %v = load i32, ptr addrspace(4) %p, align 4
  %j = and i32 %id, 7
  %q = getelementptr inbounds [8 x i64], ptr addrspace(1) @wide, i32 0, i32 %j
  %w = load i64, ptr addrspace(1) %q, align 8
  %wt = trunc i64 %w to i32
  %s = add i32 %v, %wt
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %id
  store i32 %s, ptr addrspace(1) %o, align 4
  ret void
}

declare i32 @llvm.amdgcn.workitem.id.x()
"#;

/// The reflection a one-binding kernel `name` with argument `out` needs.
fn one_buffer_reflection(name: &str) -> aqueduct_shaderc::Reflection {
    let json = format!(
        r#"{{"version":{},"source":"t.ll","source_hash":"","entry_points":[{{"name":"{name}","kernel":"{name}","workgroup_size":[64,1,1],"workgroup_memory_size":0,"uses_subgroups":false,"bindings":[{{"group":0,"binding":0,"kind":"storage_read_write","min_binding_size":4,"array_stride":null,"arg":"out","size_arg":null,"name":"out"}}]}}]}}"#,
        aqueduct_shaderc::REFLECTION_VERSION
    );
    aqueduct_shaderc::Reflection::from_json(&json).unwrap()
}

#[test]
fn rodata_relocations_match_lld_and_run() {
    let Some((ours, theirs)) = toolchains("rodata relocations") else {
        return;
    };
    let object = ours
        .compile_object(TABLE_IR, "table", "gfx1100", 3)
        .unwrap();
    let relocations = Elf::parse(&object).section(".rela.text").unwrap().to_vec();
    let types: Vec<u32> = relocations.chunks_exact(24).map(|r| u32_at(r, 8)).collect();
    assert!(types.contains(&10) && types.contains(&11), "{types:?}");
    for target in ["gfx942", "gfx90a"] {
        compare(TABLE_IR, "table", target, &ours, &theirs);
    }
    let co = compare(TABLE_IR, "table", "gfx1100", &ours, &theirs);
    let out = run_code_object(
        &co,
        &one_buffer_reflection("lookup"),
        "lookup",
        &[(0, 0, vec![0; 64 * 4])],
        [1, 1, 1],
    )
    .unwrap();
    let table = [3u32, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3];
    let expected: Vec<u32> = (0..64)
        .map(|i| table[i % 16] + 10 * (i as u32 % 8 + 1))
        .collect();
    assert_eq!(u32s(&out[0]), expected);
}

/// A kernel with a writable global (`.data`): outside the linker's subset.
const DATA_IR: &str = r#"target triple = "amdgcn-amd-amdhsa"

@g = internal addrspace(1) global i32 7, align 4

define amdgpu_kernel void @bump(ptr addrspace(1) %out) "amdgpu-flat-work-group-size"="64,64" {
entry:
  %v = load volatile i32, ptr addrspace(1) @g, align 4
  %w = add i32 %v, 1
  store i32 %w, ptr addrspace(1) %out, align 4
  ret void
}
"#;

#[test]
fn unsupported_objects_are_refused_and_linked_by_lld() {
    let Some((ours, _)) = toolchains("linker fallback") else {
        return;
    };
    let object = ours.compile_object(DATA_IR, "data", "gfx1100", 3).unwrap();
    match link(&object) {
        Err(LinkError::UnsupportedSection { name, .. }) => assert_eq!(name, ".data"),
        other => panic!("{other:?}"),
    }
    let co = ours.compile_ir(DATA_IR, "data", "gfx1100", 3).unwrap();
    assert!(
        Elf::parse(&co).section(".comment").is_some(),
        "ld.lld links it"
    );
    let out = run_code_object(
        &co,
        &one_buffer_reflection("bump"),
        "bump",
        &[(0, 0, vec![0; 4])],
        [1, 1, 1],
    )
    .unwrap();
    assert_eq!(u32s(&out[0]), [8]);

    // An absolute relocation in a position-independent object needs a
    // dynamic relocation; an unknown type is not guessed at.
    let object = ours
        .compile_object(TABLE_IR, "table", "gfx1100", 3)
        .unwrap();
    let elf = Elf::parse(&object);
    let (_, _, _, rela_off, _) = elf
        .sections
        .iter()
        .find(|s| s.0 == ".rela.text")
        .unwrap()
        .clone();
    for (r_type, expected) in [
        (
            3u8,
            LinkError::NeedsDynamicRelocation {
                r_type: 3,
                symbol: ".rodata".into(),
            },
        ),
        (
            7u8,
            LinkError::UnsupportedRelocation {
                r_type: 7,
                section: ".text".into(),
                offset: u64_at(&object, rela_off as usize),
            },
        ),
    ] {
        let mut patched = object.clone();
        patched[rela_off as usize + 8] = r_type;
        assert_eq!(link(&patched), Err(expected));
    }
    assert_eq!(link(b"\x7fELF"), Err(LinkError::NotRelocatable));
}

#[test]
fn the_cache_identity_names_the_compiler() {
    let Some((ours, theirs)) = toolchains("identity") else {
        return;
    };
    let library = ours.in_process_library().unwrap().display().to_string();
    assert!(ours.identity().contains(&format!(";in-process:{library}:")));
    assert!(theirs.in_process_library().is_none());
    assert!(!theirs.identity().contains("in-process"));
    assert!(ours.identity().starts_with(&theirs.identity()));
}

#[test]
fn concurrent_in_process_compiles_agree() {
    let Some((ours, _)) = toolchains("concurrent compiles") else {
        return;
    };
    let ir = batch_ir();
    let targets = ["gfx1100", "gfx942"];
    let alone: Vec<Vec<u8>> = targets
        .iter()
        .map(|t| ours.compile_ir(&ir, "batch", t, 3).unwrap())
        .collect();
    let together: Vec<Vec<u8>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let (ours, ir) = (&ours, &ir);
                s.spawn(move || ours.compile_ir(ir, "batch", targets[i % 2], 3).unwrap())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (i, co) in together.iter().enumerate() {
        assert!(*co == alone[i % 2], "thread {i} ({})", targets[i % 2]);
    }
}

#[test]
fn damaged_objects_are_errors_not_panics() {
    let Some((ours, _)) = toolchains("damaged objects") else {
        return;
    };
    let object = ours
        .compile_object(TABLE_IR, "table", "gfx1100", 3)
        .unwrap();
    assert!(link(&object).is_ok());
    for len in (0..object.len()).step_by(7) {
        assert!(link(&object[..len]).is_err(), "truncated to {len}");
    }
    // Every byte of the headers and tables set to extreme values: the
    // result is a code object or an error, never a panic.
    let mut rng = Rng::new(7);
    for at in 0..object.len() {
        for value in [0u8, 0xff, 0x80, rng.u32s(1)[0] as u8] {
            let mut damaged = object.clone();
            damaged[at] = value;
            let _ = link(&damaged);
        }
    }
    for at in (0..object.len() - 8).step_by(4) {
        let mut damaged = object.clone();
        damaged[at..at + 8].fill(0xff);
        let _ = link(&damaged);
    }
}

#[test]
fn the_library_alone_compiles_without_the_tools() {
    let Some((ours, _)) = toolchains("library without tools") else {
        return;
    };
    // A directory with no clang-19 or ld.lld-19 in bin/ and the library in lib/.
    let root =
        std::env::temp_dir().join(format!("aqueduct-shaderc-libonly-{}", std::process::id()));
    let (bin, lib) = (root.join("bin"), root.join("lib"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&lib).unwrap();
    let library = ours.in_process_library().unwrap();
    let link_path = lib.join("libLLVM.so.19.1");
    let _ = std::fs::remove_file(&link_path);
    std::os::unix::fs::symlink(library, &link_path).unwrap();

    assert!(matches!(
        Toolchain::find_with(Some(&bin), LlvmMode::Process),
        Err(aqueduct_shaderc::CompileError::ToolMissing { .. })
    ));
    let alone = Toolchain::find_with(Some(&bin), LlvmMode::Auto).unwrap();
    assert_eq!(alone.in_process_library(), Some(library));
    let co = alone.compile_ir(TABLE_IR, "table", "gfx1100", 3).unwrap();
    assert_eq!(
        co,
        ours.compile_ir(TABLE_IR, "table", "gfx1100", 3).unwrap()
    );
    // What the linker here refuses needs ld.lld-19, which is missing.
    match alone.compile_ir(DATA_IR, "data", "gfx1100", 3) {
        Err(aqueduct_shaderc::CompileError::ToolMissing { tool, .. }) => {
            assert_eq!(tool, "ld.lld-19")
        }
        other => panic!("{other:?}"),
    }
    // Neither the tools nor the library: the tools are reported missing.
    let empty = root.join("empty/bin");
    std::fs::create_dir_all(&empty).unwrap();
    assert!(matches!(
        Toolchain::find_with(Some(&empty), LlvmMode::Auto),
        Err(aqueduct_shaderc::CompileError::ToolMissing { .. })
    ));
    assert!(matches!(
        Toolchain::find_with(Some(&empty), LlvmMode::InProcess),
        Err(aqueduct_shaderc::CompileError::LlvmUnavailable { .. })
    ));
    let _ = std::fs::remove_dir_all(&root);
}
