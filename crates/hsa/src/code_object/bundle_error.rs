//! [`BundleError`]: why an offload bundle (plain `__CLANG_OFFLOAD_BUNDLE__`
//! or compressed `CCOB`) cannot be read. Messages open as the loader's
//! other errors do: "truncated input: ...", "bad offload bundle: ...",
//! "cannot decompress offload bundle: ...".

use thiserror::Error;

/// The decompressor a compressed bundle names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Zlib,
    Zstd,
}

impl std::fmt::Display for Compression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Compression::Zlib => "zlib",
            Compression::Zstd => "zstd",
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BundleError {
    #[error("bad offload bundle: missing __CLANG_OFFLOAD_BUNDLE__ magic")]
    MissingMagic,
    #[error("truncated input: bundle entry count")]
    EntryCount,
    #[error("truncated input: bundle entry table for {count} entries")]
    EntryTable { count: u64 },
    #[error("truncated input: bundle entry {index} record")]
    EntryRecord { index: u64 },
    #[error("truncated input: bundle entry {index} id")]
    EntryId { index: u64 },
    #[error("bad offload bundle: entry {index} id is not UTF-8")]
    EntryIdNotUtf8 { index: u64 },
    #[error(
        "truncated input: bundle entry {index} ({id}) data at {offset:#x}+{size:#x}, file is {file_len:#x} bytes"
    )]
    EntryData {
        index: u64,
        id: String,
        offset: u64,
        size: u64,
        file_len: usize,
    },
    #[error("bad offload bundle: missing CCOB magic")]
    MissingCompressedMagic,
    #[error("truncated input: compressed bundle header")]
    CompressedHeader,
    #[error("bad offload bundle: unsupported compressed bundle version {version}")]
    CompressedVersion { version: u16 },
    #[error("bad offload bundle: total size {total} is smaller than the {header_len}-byte header")]
    TotalBelowHeader { total: u64, header_len: usize },
    #[error(
        "truncated input: compressed bundle payload ({declared} bytes declared, {present} present)"
    )]
    CompressedPayload { declared: u64, present: usize },
    #[error("bad offload bundle: uncompressed size {size} is larger than {limit}")]
    UncompressedTooLarge { size: u64, limit: u64 },
    #[error("bad offload bundle: unknown compression method {method} (0 = zlib, 1 = zstd)")]
    CompressionMethod { method: u16 },
    /// The decompressor failed; `message` is its own account (its error
    /// types are not comparable, so their text is kept).
    #[error("cannot decompress offload bundle: {method}: {message}")]
    Decoder {
        method: Compression,
        message: String,
    },
    #[error(
        "cannot decompress offload bundle: decompressed {decompressed} bytes, header says {declared}"
    )]
    SizeMismatch { decompressed: usize, declared: u64 },
    #[error(
        "cannot decompress offload bundle: MD5 of the decompressed bundle does not match the header"
    )]
    Md5Mismatch,
}
