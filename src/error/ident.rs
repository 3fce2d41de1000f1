//! How errors name the objects they are about: a buffer by label or size,
//! a bind group layout by label or the pipeline that derived it, and which
//! use of a buffer a check concerns.

use std::fmt;

/// `` `label` `` after a space for a labelled object, nothing otherwise
/// (`create_buffer `input`: ...`).
pub(crate) fn label_suffix(label: &Option<String>) -> String {
    label
        .as_deref()
        .map(|l| format!(" `{l}`"))
        .unwrap_or_default()
}

/// A buffer as a message names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferIdent {
    pub label: Option<String>,
    pub size: u64,
}

impl fmt::Display for BufferIdent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.label {
            Some(l) => write!(f, "buffer `{l}`"),
            None => write!(f, "a {}-byte buffer", self.size),
        }
    }
}

/// A bind group layout as a message names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutIdent {
    pub label: Option<String>,
    /// The pipeline (by creation number) whose auto layout made it.
    pub derived_by: Option<u64>,
}

impl fmt::Display for LayoutIdent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.label, self.derived_by) {
            (Some(l), _) => write!(f, "bind group layout `{l}`"),
            (None, Some(p)) => write!(f, "the bind group layout derived by pipeline #{p}"),
            (None, None) => f.write_str("a bind group layout"),
        }
    }
}

/// Which use of a buffer a check is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferRole {
    /// The one buffer a call takes.
    Buffer,
    Source,
    Destination,
    Indirect,
    /// A bind group entry, by binding number.
    Binding(u32),
    /// A query set's slots.
    QueryStorage,
}

impl fmt::Display for BufferRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferRole::Buffer => f.write_str("the buffer"),
            BufferRole::Source => f.write_str("the source"),
            BufferRole::Destination => f.write_str("the destination"),
            BufferRole::Indirect => f.write_str("the indirect buffer"),
            BufferRole::Binding(b) => write!(f, "binding {b}"),
            BufferRole::QueryStorage => f.write_str("storage"),
        }
    }
}

/// A buffer a command cannot use.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnusableBuffer {
    #[error("{role} ({buffer}) is invalid")]
    Invalid {
        role: BufferRole,
        buffer: BufferIdent,
    },
    #[error("{role} ({buffer}) has been destroyed")]
    Destroyed {
        role: BufferRole,
        buffer: BufferIdent,
    },
    #[error("{role}: {source}")]
    WrongDevice {
        role: BufferRole,
        #[source]
        source: super::DeviceMismatch,
    },
}
