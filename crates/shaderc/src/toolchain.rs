//! The LLVM tools, run as subprocesses (never linked in): clang-19 compiles
//! the IR to an object, ld.lld-19 links it into an ET_DYN code object.
//! Several targets are packed into a clang offload bundle, written here in
//! the format clang-offload-bundler-19 produces (host entry first, then
//! `hipv4-amdgcn-amd-amdhsa--<gfx>` entries back to back).
//!
//! Determinism: the IR file is compiled by a relative name from a private
//! temporary directory, with -fno-ident and --build-id=none, so the output
//! bytes depend only on the IR, the target and the optimisation level.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::CompileError;

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

/// Where the LLVM tools are.
#[derive(Clone, Debug)]
pub struct Toolchain {
    pub clang: PathBuf,
    pub lld: PathBuf,
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
    /// Find clang-19 and ld.lld-19 (in `dir`, else on PATH).
    pub fn find(dir: Option<&Path>) -> Result<Toolchain, CompileError> {
        let clang = find_in_path("clang-19", dir).ok_or_else(|| CompileError::ToolMissing {
            tool: "clang-19".into(),
            package: "clang-19".into(),
        })?;
        let lld = find_in_path("ld.lld-19", dir).ok_or_else(|| CompileError::ToolMissing {
            tool: "ld.lld-19".into(),
            package: "lld-19".into(),
        })?;
        Ok(Toolchain { clang, lld })
    }

    /// What identifies these tools' output without running them: each
    /// binary's resolved path, size and modification time, e.g.
    /// `/usr/lib/llvm-19/bin/clang:123456:1700000000.0`. An upgraded or
    /// rebuilt LLVM gives another identity (asking `--version` would cost a
    /// process per compile). A tool that cannot be inspected shows its path
    /// alone.
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
        format!("{};{}", describe(&self.clang), describe(&self.lld))
    }

    /// True when both tools are installed.
    pub fn available() -> bool {
        Self::find(None).is_ok()
    }

    /// Compile LLVM IR text into a code object for `target`.
    pub fn compile_ir(
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
        run(
            Command::new(&self.clang)
                .current_dir(&dir.path)
                .args(["-x", "ir", "-target", "amdgcn-amd-amdhsa", "-nogpulib"])
                .arg(format!("-mcpu={target}"))
                .arg(format!("-O{}", opt_level.min(3)))
                .args([
                    "-mcode-object-version=5",
                    "-fno-ident",
                    "-c",
                    &ll,
                    "-o",
                    &obj,
                ]),
            "clang-19",
        )?;
        run(
            Command::new(&self.lld).current_dir(&dir.path).args([
                "-shared",
                "--build-id=none",
                &obj,
                "-o",
                &co,
            ]),
            "ld.lld-19",
        )?;
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
