//! Sources of sysfs-format topology trees.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A read-only tree of small text files, addressed by '/'-separated paths
/// relative to the topology root (e.g. "nodes/1/properties").
pub trait SysfsTree {
    /// Contents of the file at `path`.
    fn read(&self, path: &str) -> std::io::Result<String>;
    /// Names of the entries of the directory at `path` ("" is the root).
    fn list(&self, path: &str) -> std::io::Result<Vec<String>>;
    /// A display form of `path` for error messages.
    fn display_path(&self, path: &str) -> PathBuf;
}

/// A directory on disk: `/sys/devices/virtual/kfd/kfd/topology` or a fixture.
#[derive(Clone, Debug)]
pub struct DirTree {
    root: PathBuf,
}

impl DirTree {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl SysfsTree for DirTree {
    fn read(&self, path: &str) -> std::io::Result<String> {
        std::fs::read_to_string(self.root.join(path))
    }
    fn list(&self, path: &str) -> std::io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(self.root.join(path))? {
            names.push(entry?.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }
    fn display_path(&self, path: &str) -> PathBuf {
        self.root.join(path)
    }
}

/// An in-memory tree (file path -> contents); directories are implied by
/// the file paths. gfxsim publishes its nodes this way.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemTree {
    files: BTreeMap<String, String>,
}

impl MemTree {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn insert(&mut self, path: impl Into<String>, contents: impl Into<String>) {
        self.files.insert(path.into(), contents.into());
    }

    /// Remove one file; returns its contents if it was there.
    pub fn remove(&mut self, path: &str) -> Option<String> {
        self.files.remove(path)
    }

    /// All files, in path order.
    pub fn files(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Load every regular file under `root` (e.g. a fixture directory, or
    /// a copy of the real sysfs tree for a bug report).
    pub fn from_dir(root: impl AsRef<Path>) -> std::io::Result<MemTree> {
        fn walk(dir: &Path, prefix: &str, tree: &mut MemTree) -> std::io::Result<()> {
            for entry in std::fs::read_dir(dir)? {
                let entry = entry?;
                let name = entry.file_name().to_string_lossy().into_owned();
                let path = if prefix.is_empty() {
                    name
                } else {
                    format!("{prefix}/{name}")
                };
                if entry.file_type()?.is_dir() {
                    walk(&entry.path(), &path, tree)?;
                } else {
                    tree.insert(path, std::fs::read_to_string(entry.path())?);
                }
            }
            Ok(())
        }
        let mut tree = MemTree::new();
        walk(root.as_ref(), "", &mut tree)?;
        Ok(tree)
    }
}

impl SysfsTree for MemTree {
    fn read(&self, path: &str) -> std::io::Result<String> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, path.to_string()))
    }
    fn list(&self, path: &str) -> std::io::Result<Vec<String>> {
        let prefix = if path.is_empty() {
            String::new()
        } else {
            format!("{path}/")
        };
        let mut names: Vec<String> = self
            .files
            .keys()
            .filter_map(|k| k.strip_prefix(&prefix))
            .map(|rest| rest.split('/').next().unwrap_or(rest).to_string())
            .collect();
        names.dedup();
        if names.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                path.to_string(),
            ));
        }
        Ok(names)
    }
    fn display_path(&self, path: &str) -> PathBuf {
        PathBuf::from("<memory>").join(path)
    }
}
