//! The LLVM back end. By default libLLVM-19 compiles the IR in this process
//! (`llvm_in_process.rs`) and the object is linked here (`link.rs`); with
//! `AQUEDUCT_SHADERC_LLVM=process`, or when the library does not load,
//! clang-19 and ld.lld-19 run as subprocesses (never linked in): clang
//! compiles the IR to an object, ld.lld links it into an ET_DYN code
//! object. An object the in-process linker does not handle is linked by
//! ld.lld-19. Several targets are packed into a clang offload bundle,
//! written here in the format clang-offload-bundler-19 produces (host
//! entry first, then `hipv4-amdgcn-amd-amdhsa--<gfx>` entries back to back).
//!
//! Determinism: the IR file is compiled by a relative name from a private
//! temporary directory, with -fno-ident and --build-id=none, so the output
//! bytes depend only on the IR, the target and the optimisation level. The
//! in-process path gives the same `.text`, `.rodata` (kernel descriptors
//! included), `.note` and dynamic symbols at the same addresses; its file
//! differs from lld's only outside the loaded segments (no `.comment`), so
//! caches tell the two apart by [`Toolchain::identity`].

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::CompileError;
use crate::llvm_in_process::InProcessLlvm;

/// The environment variable choosing how LLVM runs: `process` (clang-19
/// and ld.lld-19 as subprocesses) or `in-process` (libLLVM-19 in this
/// process; an error when it does not load). Unset or empty: in process
/// when libLLVM-19 loads, else subprocesses.
pub const LLVM_MODE_ENV: &str = "AQUEDUCT_SHADERC_LLVM";

/// How LLVM runs (see [`LLVM_MODE_ENV`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LlvmMode {
    /// In process when libLLVM-19 loads, else subprocesses.
    Auto,
    /// clang-19 and ld.lld-19 as subprocesses.
    Process,
    /// libLLVM-19 in this process ([`CompileError::LlvmUnavailable`] when
    /// it does not load).
    InProcess,
}

impl LlvmMode {
    /// The mode [`LLVM_MODE_ENV`] selects.
    pub fn from_env() -> Result<LlvmMode, CompileError> {
        let value = std::env::var_os(LLVM_MODE_ENV).unwrap_or_default();
        match value.to_str() {
            Some("") | Some("auto") => Ok(LlvmMode::Auto),
            Some("process") => Ok(LlvmMode::Process),
            Some("in-process") => Ok(LlvmMode::InProcess),
            _ => Err(CompileError::BadLlvmSelection {
                value: value.to_string_lossy().into_owned(),
            }),
        }
    }
}

/// The targets this compiler knows (gfx1100 is the default).
pub const KNOWN_TARGETS: &[&str] = &["gfx1100", "gfx942", "gfx90a", "gfx1030", "gfx1201"];

/// The wave (= WGSL subgroup) size kernels are compiled for on `target`:
/// 64 on gfx9 (GCN/CDNA), 32 on gfx10 and later (RDNA, wave32 by default).
/// None for a target this compiler does not know.
pub fn wave_size(target: &str) -> Option<u32> {
    if !KNOWN_TARGETS.contains(&target) {
        return None;
    }
    Some(if target.starts_with("gfx9") { 64 } else { 32 })
}

/// Where the LLVM tools are, and the in-process library when it compiles.
#[derive(Clone, Debug)]
pub struct Toolchain {
    pub clang: PathBuf,
    pub lld: PathBuf,
    /// libLLVM-19 in this process, when it compiles (else the tools do).
    llvm: Option<Library>,
}

/// The in-process library a toolchain compiles with: found by its file
/// (cheap, so finding a toolchain for a cache key loads nothing) and
/// loaded at the first compile.
#[derive(Clone, Debug)]
struct Library {
    /// The canonical file.
    file: PathBuf,
    /// The tools' directory the library was looked for from.
    dir: Option<PathBuf>,
    /// `LlvmMode::InProcess`: a library that does not load is an error;
    /// otherwise the tools compile.
    required: bool,
}

impl Library {
    fn load(&self) -> Result<Arc<InProcessLlvm>, CompileError> {
        Ok(InProcessLlvm::get(self.dir.as_deref())?)
    }
}

fn find_in_path(name: &str, dir: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = dir {
        let p = dir.join(name);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

impl Toolchain {
    /// Find clang-19 and ld.lld-19 (in `dir`, else on PATH) and, as
    /// [`LLVM_MODE_ENV`] selects, libLLVM-19 (`dir/../lib`, else the
    /// system's). The library is found by its file and loaded at the first
    /// compile, so a toolchain found only for its [`Toolchain::identity`]
    /// (a cache lookup) costs no `dlopen`. In process the tools are
    /// optional: without them `clang` and `lld` are the names they would
    /// have, and an object the linker here refuses fails with
    /// [`CompileError::ToolMissing`].
    pub fn find(dir: Option<&Path>) -> Result<Toolchain, CompileError> {
        Self::find_with(dir, LlvmMode::from_env()?)
    }

    /// The toolchain `options` ask for: their directory, and their mode or
    /// else the environment's.
    pub fn for_options(options: &crate::Options) -> Result<Toolchain, CompileError> {
        match options.llvm_mode {
            Some(mode) => Self::find_with(options.llvm_bin.as_deref(), mode),
            None => Self::find(options.llvm_bin.as_deref()),
        }
    }

    /// [`Toolchain::find`] with the mode given rather than read from the
    /// environment.
    pub fn find_with(dir: Option<&Path>, mode: LlvmMode) -> Result<Toolchain, CompileError> {
        let tools = Self::find_tools(dir);
        if mode == LlvmMode::Process {
            return tools;
        }
        // Where the file is not found by name, only loading it tells.
        let file = match crate::llvm_in_process::locate(dir) {
            Some(file) => Ok(file),
            None => InProcessLlvm::get(dir)
                .map(|llvm| llvm.path().to_path_buf())
                .map_err(CompileError::from),
        };
        let file = match (file, mode) {
            (Ok(file), _) => file,
            (Err(e), LlvmMode::InProcess) => return Err(e),
            (Err(e), _) => {
                tracing::debug!("compiling with subprocesses: {e}");
                return tools;
            }
        };
        let llvm = Library {
            file,
            dir: dir.map(Path::to_path_buf),
            required: mode == LlvmMode::InProcess,
        };
        let named = |name: &str| dir.map_or_else(|| PathBuf::from(name), |d| d.join(name));
        let tools = tools.unwrap_or_else(|_| Toolchain {
            clang: named("clang-19"),
            lld: named("ld.lld-19"),
            llvm: None,
        });
        Ok(Toolchain {
            llvm: Some(llvm),
            ..tools
        })
    }

    /// The libLLVM-19 file compiling in this process; None when clang-19
    /// and ld.lld-19 run as subprocesses.
    pub fn in_process_library(&self) -> Option<&Path> {
        self.llvm.as_ref().map(|l| l.file.as_path())
    }

    fn find_tools(dir: Option<&Path>) -> Result<Toolchain, CompileError> {
        let clang = find_in_path("clang-19", dir).ok_or_else(|| CompileError::ToolMissing {
            tool: "clang-19".into(),
            package: "clang-19".into(),
        })?;
        let lld = find_in_path("ld.lld-19", dir).ok_or_else(|| CompileError::ToolMissing {
            tool: "ld.lld-19".into(),
            package: "lld-19".into(),
        })?;
        Ok(Toolchain {
            clang,
            lld,
            llvm: None,
        })
    }

    /// What identifies these tools' output without running them: each
    /// binary's resolved path, size and modification time, e.g.
    /// `/usr/lib/llvm-19/bin/clang:123456:1700000000.0`. An upgraded or
    /// rebuilt LLVM gives another identity (asking `--version` would cost a
    /// process per compile). A tool that cannot be inspected shows its path
    /// alone. When LLVM compiles in process the library's identity follows
    /// (`;in-process:/usr/lib/.../libLLVM.so.19.1:SIZE:MTIME`): its files
    /// differ from lld's outside the loaded segments.
    pub fn identity(&self) -> String {
        let describe = |tool: &Path| {
            let resolved = std::fs::canonicalize(tool).unwrap_or_else(|_| tool.to_path_buf());
            match std::fs::metadata(&resolved) {
                Ok(meta) => {
                    let modified = meta
                        .modified()
                        .ok()
                        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                        .unwrap_or_default();
                    format!(
                        "{}:{}:{}.{}",
                        resolved.display(),
                        meta.len(),
                        modified.as_secs(),
                        modified.subsec_nanos()
                    )
                }
                Err(_) => resolved.display().to_string(),
            }
        };
        let tools = format!("{};{}", describe(&self.clang), describe(&self.lld));
        match self.in_process_library() {
            Some(library) => format!("{tools};in-process:{}", describe(library)),
            None => tools,
        }
    }

    /// True when both tools are installed (in-process compiles may work
    /// without them: see [`Toolchain::find`]).
    pub fn available() -> bool {
        Self::find_tools(None).is_ok()
    }

    /// Compile LLVM IR text into a code object for `target` (the
    /// cooperative matrix helpers the IR declares are defined for `target`
    /// first: `matrix_cores.rs`).
    pub fn compile_ir(
        &self,
        ir: &str,
        stem: &str,
        target: &str,
        opt_level: u8,
    ) -> Result<Vec<u8>, CompileError> {
        let ir = &*crate::matrix_cores::define_for_target(ir, target);
        let Some(llvm) = self.loaded()? else {
            return self.compile_ir_with_tools(ir, stem, target, opt_level);
        };
        let object =
            crate::llvm_in_process::compile(&llvm, ir, &format!("{stem}.ll"), target, opt_level)?;
        match crate::link::link(&object) {
            Ok(code_object) => Ok(code_object),
            Err(e) => {
                tracing::debug!(target, "linking with ld.lld-19: {e}");
                self.link_with_lld(&object, stem)
            }
        }
    }

    /// The relocatable object clang-19 (or libLLVM-19 in process) makes of
    /// `ir` for `target`, before linking.
    pub fn compile_object(
        &self,
        ir: &str,
        stem: &str,
        target: &str,
        opt_level: u8,
    ) -> Result<Vec<u8>, CompileError> {
        let ir = &*crate::matrix_cores::define_for_target(ir, target);
        if let Some(llvm) = self.loaded()? {
            return crate::llvm_in_process::compile(
                &llvm,
                ir,
                &format!("{stem}.ll"),
                target,
                opt_level,
            );
        }
        let dir = TempDir::new()?;
        let ll = format!("{stem}.ll");
        let obj = format!("{stem}.o");
        std::fs::write(dir.path.join(&ll), ir)
            .map_err(|e| CompileError::io(dir.path.join(&ll), e))?;
        self.run_clang(&dir, &ll, &obj, target, opt_level)?;
        std::fs::read(dir.path.join(&obj)).map_err(|e| CompileError::io(dir.path.join(&obj), e))
    }

    /// The in-process library, loaded; None when the tools compile (also
    /// when a library found by name does not load and was not required).
    fn loaded(&self) -> Result<Option<Arc<InProcessLlvm>>, CompileError> {
        let Some(library) = &self.llvm else {
            return Ok(None);
        };
        match library.load() {
            Ok(llvm) => Ok(Some(llvm)),
            Err(e) if library.required => Err(e),
            Err(e) => {
                tracing::warn!("compiling with subprocesses: {e}");
                Ok(None)
            }
        }
    }

    /// Link a relocatable object with ld.lld-19.
    fn link_with_lld(&self, object: &[u8], stem: &str) -> Result<Vec<u8>, CompileError> {
        let dir = TempDir::new()?;
        let obj = format!("{stem}.o");
        let co = format!("{stem}.co");
        std::fs::write(dir.path.join(&obj), object)
            .map_err(|e| CompileError::io(dir.path.join(&obj), e))?;
        self.run_lld(&dir, &obj, &co)?;
        std::fs::read(dir.path.join(&co)).map_err(|e| CompileError::io(dir.path.join(&co), e))
    }

    fn run_clang(
        &self,
        dir: &TempDir,
        ll: &str,
        obj: &str,
        target: &str,
        opt_level: u8,
    ) -> Result<(), CompileError> {
        run(
            Command::new(&self.clang)
                .current_dir(&dir.path)
                .args(["-x", "ir", "-target", "amdgcn-amd-amdhsa", "-nogpulib"])
                .arg(format!("-mcpu={target}"))
                .arg(format!("-O{}", opt_level.min(3)))
                .args(["-mcode-object-version=5", "-fno-ident", "-c", ll, "-o", obj]),
            "clang-19",
        )
    }

    fn run_lld(&self, dir: &TempDir, obj: &str, co: &str) -> Result<(), CompileError> {
        run(
            Command::new(&self.lld).current_dir(&dir.path).args([
                "-shared",
                "--build-id=none",
                obj,
                "-o",
                co,
            ]),
            "ld.lld-19",
        )
    }

    /// clang-19 then ld.lld-19, as subprocesses.
    fn compile_ir_with_tools(
        &self,
        ir: &str,
        stem: &str,
        target: &str,
        opt_level: u8,
    ) -> Result<Vec<u8>, CompileError> {
        let dir = TempDir::new()?;
        let ll = format!("{stem}.ll");
        let obj = format!("{stem}.o");
        let co = format!("{stem}.co");
        std::fs::write(dir.path.join(&ll), ir)
            .map_err(|e| CompileError::io(dir.path.join(&ll), e))?;
        self.run_clang(&dir, &ll, &obj, target, opt_level)?;
        self.run_lld(&dir, &obj, &co)?;
        std::fs::read(dir.path.join(&co)).map_err(|e| CompileError::io(dir.path.join(&co), e))
    }
}

fn run(cmd: &mut Command, tool: &str) -> Result<(), CompileError> {
    let out = cmd.output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            CompileError::ToolMissing {
                tool: tool.into(),
                package: tool.replace("ld.", "").to_string(),
            }
        } else {
            CompileError::io(tool, e)
        }
    })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(CompileError::ToolFailed {
            tool: tool.into(),
            status: out.status.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }
}

/// A private temporary directory, removed on drop.
struct TempDir {
    path: PathBuf,
}

impl TempDir {
    fn new() -> Result<TempDir, CompileError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("aqueduct-shaderc-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).map_err(|e| CompileError::io(&path, e))?;
        Ok(TempDir { path })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// The bundle entry id of a gfx target.
pub fn bundle_entry_id(target: &str) -> String {
    format!("hipv4-amdgcn-amd-amdhsa--{target}")
}

/// Pack code objects into an uncompressed clang offload bundle: magic,
/// entry count, then per entry (offset, size, id length, id), all u64 LE;
/// an empty host entry comes first, as clang-offload-bundler writes it.
pub fn bundle(objects: &[(String, Vec<u8>)]) -> Vec<u8> {
    const MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
    let mut ids = vec!["host-x86_64-unknown-linux-gnu-".to_string()];
    ids.extend(objects.iter().map(|(t, _)| bundle_entry_id(t)));
    let header_len: usize = MAGIC.len() + 8 + ids.iter().map(|id| 24 + id.len()).sum::<usize>();
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(ids.len() as u64).to_le_bytes());
    let mut offset = header_len as u64;
    let sizes: Vec<u64> = std::iter::once(0)
        .chain(objects.iter().map(|(_, b)| b.len() as u64))
        .collect();
    for (id, size) in ids.iter().zip(&sizes) {
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&(id.len() as u64).to_le_bytes());
        out.extend_from_slice(id.as_bytes());
        offset += size;
    }
    for (_, bytes) in objects {
        out.extend_from_slice(bytes);
    }
    out
}
