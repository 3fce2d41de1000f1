//! Errors of query sets: creation, using one in a command, and timestamp
//! writes.

use wgpu_types::{QUERY_SET_MAX_QUERIES, QueryType};

use super::ident::label_suffix;

/// Why `create_query_set` failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum QuerySetError {
    /// A timestamp query set was asked for without `Features::TIMESTAMP_QUERY`.
    #[error(
        "create_query_set{}: timestamp queries need Features::TIMESTAMP_QUERY; request it in the \
         DeviceDescriptor",
        label_suffix(label)
    )]
    MissingTimestampFeature {
        /// The query set's label, if it has one.
        label: Option<String>,
    },
    /// The query type is not `Timestamp`, the only one a compute-only device has.
    #[error(
        "create_query_set{}: query type {ty:?} is not supported (Aqueduct is compute-only; only \
         Timestamp queries exist)",
        label_suffix(label)
    )]
    UnsupportedType {
        /// The query set's label, if it has one.
        label: Option<String>,
        /// The requested query type.
        ty: QueryType,
    },
    /// The count is above `QUERY_SET_MAX_QUERIES`.
    #[error(
        "create_query_set{}: count {count} exceeds QUERY_SET_MAX_QUERIES ({QUERY_SET_MAX_QUERIES})",
        label_suffix(label)
    )]
    TooManyQueries {
        /// The query set's label, if it has one.
        label: Option<String>,
        /// The requested number of queries.
        count: u32,
    },
}

/// Why a command cannot use a query set (or one of its queries).
#[derive(Clone, Debug, thiserror::Error)]
pub enum QueryUseError {
    /// The query set is invalid: its creation failed.
    #[error("query set{} is invalid", label_suffix(label))]
    Invalid {
        /// The query set's label, if it has one.
        label: Option<String>,
    },
    /// The query set was destroyed (`QuerySet::destroy`).
    #[error("query set{} has been destroyed", label_suffix(label))]
    Destroyed {
        /// The query set's label, if it has one.
        label: Option<String>,
    },
    /// A query set of another device was given.
    #[error(transparent)]
    WrongDevice(#[from] super::DeviceMismatch),
    /// A timestamp write got a query set of another type.
    #[error("query set{} is of type {ty:?}, not Timestamp", label_suffix(label))]
    NotTimestamp {
        /// The query set's label, if it has one.
        label: Option<String>,
        /// The query set's type.
        ty: QueryType,
    },
    /// The query index is at or above the query set's count.
    #[error(
        "query index {index} is not below the count ({count}) of query set{}",
        label_suffix(label)
    )]
    IndexOutOfRange {
        /// The query set's label, if it has one.
        label: Option<String>,
        /// The query index.
        index: u32,
        /// How many queries the set holds.
        count: u32,
    },
}

/// Why a timestamp write (an encoder's, a pass's, or a pass's
/// `timestamp_writes`) failed.
#[derive(Clone, Debug, thiserror::Error)]
pub enum TimestampError {
    /// The device lacks `Features::TIMESTAMP_QUERY`.
    #[error("needs Features::TIMESTAMP_QUERY; request it in the DeviceDescriptor")]
    MissingTimestampFeature,
    /// `CommandEncoder::write_timestamp` needs `Features::TIMESTAMP_QUERY_INSIDE_ENCODERS`, which
    /// the device lacks.
    #[error(
        "needs Features::TIMESTAMP_QUERY_INSIDE_ENCODERS; request it in the DeviceDescriptor (or \
         use ComputePassDescriptor::timestamp_writes)"
    )]
    MissingInsideEncodersFeature,
    /// `ComputePass::write_timestamp` needs `Features::TIMESTAMP_QUERY_INSIDE_PASSES`, which the
    /// device lacks.
    #[error("needs Features::TIMESTAMP_QUERY_INSIDE_PASSES; request it in the DeviceDescriptor")]
    MissingInsidePassesFeature,
    /// A pass's `timestamp_writes` gives neither a beginning nor an end index.
    #[error("neither a beginning nor an end write index is given")]
    NoWriteIndex,
    /// A pass's `timestamp_writes` gives the same index for the beginning and the end.
    #[error("the beginning and end write indices are both {index}; they must differ")]
    SameWriteIndices {
        /// The index given for both.
        index: u32,
    },
    /// The query set cannot be used.
    #[error(transparent)]
    Query(#[from] QueryUseError),
}
