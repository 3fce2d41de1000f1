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
    /// The buffer's label, if it has one.
    pub label: Option<String>,
    /// The buffer's size in bytes.
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
    /// The layout's label, if it has one.
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
    /// The source of a copy.
    Source,
    /// The destination of a copy or of a query resolve.
    Destination,
    /// The buffer an indirect dispatch reads its workgroup counts from.
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
    /// The buffer has no memory: its creation failed (validation or allocation).
    #[error("{role} ({buffer}) is invalid")]
    Invalid {
        /// Which use of the buffer the command makes.
        role: BufferRole,
        /// The buffer.
        buffer: BufferIdent,
    },
    /// The buffer was destroyed (`Buffer::destroy`) before the call.
    #[error("{role} ({buffer}) has been destroyed")]
    Destroyed {
        /// Which use of the buffer the command makes.
        role: BufferRole,
        /// The buffer.
        buffer: BufferIdent,
    },
    /// The buffer belongs to another device than the call's.
    #[error("{role}: {source}")]
    WrongDevice {
        /// Which use of the buffer the command makes.
        role: BufferRole,
        #[source]
        /// The two devices.
        source: super::DeviceMismatch,
    },
}
