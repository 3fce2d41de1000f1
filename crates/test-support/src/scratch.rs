//! A directory of a test's own under the system's temporary directory,
//! removed with everything in it when the value drops, so test runs leave
//! nothing behind. A failing test removes it too (the drop runs while the
//! panic unwinds); set `AQUEDUCT_KEEP_SCRATCH=1` to keep it for a look.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// Set to keep every scratch directory (their paths are printed).
pub const KEEP_SCRATCH_ENV: &str = "AQUEDUCT_KEEP_SCRATCH";

/// A fresh, empty directory named after `what`, the process and a counter
/// (unique within the process, and across processes running at once).
pub struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    pub fn new(what: &str) -> ScratchDir {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("aqueduct-{what}-{}-{n}", std::process::id()));
        // A directory of the same name is left over from a process that
        // died with this process id: start empty.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path)
            .unwrap_or_else(|e| panic!("scratch directory {}: {e}", path.display()));
        ScratchDir { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `name` inside the directory.
    pub fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.path.join(name)
    }
}

impl AsRef<Path> for ScratchDir {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        if std::env::var_os(KEEP_SCRATCH_ENV).is_some() {
            eprintln!("kept {}", self.path.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ScratchDir;

    #[test]
    fn a_scratch_directory_is_fresh_and_goes_with_its_files() {
        let (a, b) = (
            ScratchDir::new("scratch-test"),
            ScratchDir::new("scratch-test"),
        );
        assert_ne!(a.path(), b.path());
        assert_eq!(std::fs::read_dir(a.path()).unwrap().count(), 0);
        std::fs::create_dir(a.join("sub")).unwrap();
        std::fs::write(a.join("sub/file"), b"x").unwrap();
        let path = a.path().to_path_buf();
        drop(a);
        assert!(!path.exists());
        assert!(b.path().is_dir());
    }
}
