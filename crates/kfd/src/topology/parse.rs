//! Parser from a sysfs tree to [`Topology`]. (Being written: issue #2.)
use super::{SysfsTree, Topology};
use crate::error::{KfdError, KfdResult};

impl Topology {
    pub fn parse(tree: &dyn SysfsTree) -> KfdResult<Topology> {
        Err(KfdError::Topology { path: tree.display_path(""), message: "parser not yet written".into() })
    }
}
