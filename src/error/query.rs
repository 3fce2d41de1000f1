//! Errors of query sets: creation, using one in a command, and timestamp
//! writes.

use wgpu_types::{QUERY_SET_MAX_QUERIES, QueryType};

use super::ident::label_suffix;
use super::lower::LowerError;

/// Why `create_query_set` failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum QuerySetError {
    #[error(
        "create_query_set{}: timestamp queries need Features::TIMESTAMP_QUERY; request it in the \
         DeviceDescriptor",
        label_suffix(label)
    )]
    MissingTimestampFeature { label: Option<String> },
    #[error(
        "create_query_set{}: query type {ty:?} is not supported (Aqueduct is compute-only; only \
         Timestamp queries exist)",
        label_suffix(label)
    )]
    UnsupportedType {
        label: Option<String>,
        ty: QueryType,
    },
    #[error(
        "create_query_set{}: count {count} exceeds QUERY_SET_MAX_QUERIES ({QUERY_SET_MAX_QUERIES})",
        label_suffix(label)
    )]
    TooManyQueries { label: Option<String>, count: u32 },
}

/// Why a command cannot use a query set (or one of its queries).
#[derive(Clone, Debug, thiserror::Error)]
pub enum QueryUseError {
    #[error("query set{} is invalid", label_suffix(label))]
    Invalid { label: Option<String> },
    #[error("query set{} has been destroyed", label_suffix(label))]
    Destroyed { label: Option<String> },
    #[error(transparent)]
    WrongDevice(#[from] super::DeviceMismatch),
    #[error("query set{} is of type {ty:?}, not Timestamp", label_suffix(label))]
    NotTimestamp {
        label: Option<String>,
        ty: QueryType,
    },
    #[error(
        "query index {index} is not below the count ({count}) of query set{}",
        label_suffix(label)
    )]
    IndexOutOfRange {
        label: Option<String>,
        index: u32,
        count: u32,
    },
}

/// Why a timestamp write (an encoder's, a pass's, or a pass's
/// `timestamp_writes`) failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum TimestampError {
    #[error("needs Features::TIMESTAMP_QUERY; request it in the DeviceDescriptor")]
    MissingTimestampFeature,
    #[error(
        "needs Features::TIMESTAMP_QUERY_INSIDE_ENCODERS; request it in the DeviceDescriptor (or \
         use ComputePassDescriptor::timestamp_writes)"
    )]
    MissingInsideEncodersFeature,
    #[error("needs Features::TIMESTAMP_QUERY_INSIDE_PASSES; request it in the DeviceDescriptor")]
    MissingInsidePassesFeature,
    #[error("neither a beginning nor an end write index is given")]
    NoWriteIndex,
    #[error("the beginning and end write indices are both {index}; they must differ")]
    SameWriteIndices { index: u32 },
    #[error(transparent)]
    Query(#[from] QueryUseError),
    #[error(transparent)]
    Lower(#[from] LowerError),
}
