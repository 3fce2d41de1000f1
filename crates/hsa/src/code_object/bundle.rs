//! Clang offload bundles: several code objects (one per target) in one file.
//!
//! Plain bundles start with `__CLANG_OFFLOAD_BUNDLE__`, an entry count and a
//! table of (offset, size, id) records; the ids look like
//! `hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`. Compressed bundles
//! (`CCOB`, versions 1-3) hold one plain bundle compressed with zlib or zstd
//! plus the first 8 bytes of its MD5, which is checked. Selecting an entry
//! for an agent uses the target-ID compatibility rules of [`IsaName`],
//! preferring an entry whose feature settings match exactly over one built
//! for "any".

use std::io::Read;
use std::ops::Range;

use md5::{Digest, Md5};

use super::bundle_error::{BundleError, Compression};
use super::error::CodeObjectError;
use super::isa::{HSA_TRIPLE, IsaName};

/// Magic of an uncompressed bundle.
pub const BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Magic of a compressed bundle.
pub const COMPRESSED_BUNDLE_MAGIC: &[u8; 4] = b"CCOB";
/// Offload kinds whose entries are AMDGPU code objects.
const DEVICE_KINDS: &[&str] = &["hip", "hipv4", "openmp"];
/// Largest decompressed bundle accepted.
const MAX_UNCOMPRESSED_SIZE: u64 = 1 << 32;

/// One bundle entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundleEntry {
    /// The entry id as stored, e.g. `hipv4-amdgcn-amd-amdhsa--gfx1100`.
    pub triple: String,
    pub bytes: Vec<u8>,
}

impl BundleEntry {
    /// The ISA of a device entry (`None` for host entries and other triples).
    pub fn isa(&self) -> Option<IsaName> {
        entry_isa(&self.triple)
    }
}

/// A parsed bundle (entries copied out; compressed bundles decompressed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle {
    pub entries: Vec<BundleEntry>,
}

impl Bundle {
    /// Whether `bytes` starts like a plain or compressed bundle.
    pub fn is_bundle(bytes: &[u8]) -> bool {
        bytes.starts_with(BUNDLE_MAGIC) || bytes.starts_with(COMPRESSED_BUNDLE_MAGIC)
    }

    /// Parse a plain or compressed bundle.
    pub fn parse(bytes: &[u8]) -> Result<Bundle, CodeObjectError> {
        let plain;
        let bytes = if bytes.starts_with(COMPRESSED_BUNDLE_MAGIC) {
            plain = decompress(bytes)?;
            &plain[..]
        } else {
            bytes
        };
        let entries = parse_entries(bytes)?
            .into_iter()
            .map(|(triple, range)| BundleEntry {
                triple,
                bytes: bytes[range].to_vec(),
            })
            .collect();
        Ok(Bundle { entries })
    }

    /// The code object of the entry that best fits `agent`.
    pub fn select(&self, agent: &IsaName) -> Result<&[u8], CodeObjectError> {
        let index = select_entry(self.entries.iter().map(|e| e.triple.as_str()), agent)?;
        Ok(&self.entries[index].bytes)
    }
}

/// The ISA named by a device entry id (`<kind>-amdgcn-amd-amdhsa-[-]<target id>`).
pub(crate) fn entry_isa(id: &str) -> Option<IsaName> {
    let (kind, triple) = id.split_once('-')?;
    if !DEVICE_KINDS.contains(&kind) || !triple.starts_with(HSA_TRIPLE) {
        return None;
    }
    IsaName::parse(triple)
}

/// Index of the entry for `agent`: compatible entries only, exact feature
/// matches first, then the first compatible one.
pub(crate) fn select_entry<'a>(
    ids: impl Iterator<Item = &'a str> + Clone,
    agent: &IsaName,
) -> Result<usize, CodeObjectError> {
    let candidates = ids
        .clone()
        .enumerate()
        .filter_map(|(i, id)| entry_isa(id).map(|isa| (i, isa)))
        .filter(|(_, isa)| isa.compatible_with(agent));
    let mut best: Option<(usize, u32)> = None;
    for (index, isa) in candidates {
        let score = u32::from(isa.xnack == agent.xnack) + u32::from(isa.sramecc == agent.sramecc);
        if best.is_none_or(|(_, best_score)| score > best_score) {
            best = Some((index, score));
        }
    }
    best.map(|(index, _)| index)
        .ok_or_else(|| CodeObjectError::NoMatchingIsa {
            agent: agent.full_name(),
            available: ids
                .filter(|id| !id.starts_with("host-"))
                .map(str::to_string)
                .collect(),
        })
}

fn read_u64(bytes: &[u8], at: usize) -> Option<u64> {
    let raw = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(raw.try_into().ok()?))
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let raw = bytes.get(at..at + 4)?;
    Some(u32::from_le_bytes(raw.try_into().ok()?))
}

fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    let raw = bytes.get(at..at + 2)?;
    Some(u16::from_le_bytes(raw.try_into().ok()?))
}

/// The (id, byte range) of every entry of a plain bundle; every range is checked to lie in `bytes`.
pub(crate) fn parse_entries(bytes: &[u8]) -> Result<Vec<(String, Range<usize>)>, BundleError> {
    if !bytes.starts_with(BUNDLE_MAGIC) {
        return Err(BundleError::MissingMagic);
    }
    let count = read_u64(bytes, BUNDLE_MAGIC.len()).ok_or(BundleError::EntryCount)?;
    // Each entry record takes at least 24 bytes; a larger count cannot be real.
    let table_start = BUNDLE_MAGIC.len() + 8;
    if count > ((bytes.len() - table_start.min(bytes.len())) / 24) as u64 {
        return Err(BundleError::EntryTable { count });
    }
    let mut entries = Vec::with_capacity(count as usize);
    let mut pos = table_start;
    for index in 0..count {
        let record = |field: usize| read_u64(bytes, pos + 8 * field);
        let (Some(offset), Some(size), Some(id_len)) = (record(0), record(1), record(2)) else {
            return Err(BundleError::EntryRecord { index });
        };
        pos += 24;
        let id_end = usize::try_from(id_len)
            .ok()
            .and_then(|len| pos.checked_add(len))
            .filter(|&end| end <= bytes.len())
            .ok_or(BundleError::EntryId { index })?;
        let id = std::str::from_utf8(&bytes[pos..id_end])
            .map_err(|_| BundleError::EntryIdNotUtf8 { index })?
            .to_string();
        pos = id_end;
        let range = offset
            .checked_add(size)
            .filter(|&end| end <= bytes.len() as u64)
            .map(|end| offset as usize..end as usize)
            .ok_or_else(|| BundleError::EntryData {
                index,
                id: id.clone(),
                offset,
                size,
                file_len: bytes.len(),
            })?;
        entries.push((id, range));
    }
    Ok(entries)
}

/// Decompress a `CCOB` bundle (v1: 20-byte header without total size; v2:
/// 32-bit sizes; v3: 64-bit sizes) and check the truncated MD5.
pub(crate) fn decompress(bytes: &[u8]) -> Result<Vec<u8>, BundleError> {
    if !bytes.starts_with(COMPRESSED_BUNDLE_MAGIC) {
        return Err(BundleError::MissingCompressedMagic);
    }
    let version = read_u16(bytes, 4).ok_or(BundleError::CompressedHeader)?;
    let method = read_u16(bytes, 6).ok_or(BundleError::CompressedHeader)?;
    let (header_len, total_size, uncompressed_size, hash) = match version {
        1 => (
            20,
            None,
            read_u32(bytes, 8).map(u64::from),
            read_u64(bytes, 12),
        ),
        2 => (
            24,
            read_u32(bytes, 8).map(u64::from),
            read_u32(bytes, 12).map(u64::from),
            read_u64(bytes, 16),
        ),
        3 => (
            32,
            read_u64(bytes, 8),
            read_u64(bytes, 16),
            read_u64(bytes, 24),
        ),
        version => return Err(BundleError::CompressedVersion { version }),
    };
    let (Some(uncompressed_size), Some(hash)) = (uncompressed_size, hash) else {
        return Err(BundleError::CompressedHeader);
    };
    let payload_end = match total_size {
        None => bytes.len() as u64,
        Some(total) if total < header_len as u64 => {
            return Err(BundleError::TotalBelowHeader { total, header_len });
        }
        Some(total) if total > bytes.len() as u64 => {
            return Err(BundleError::CompressedPayload {
                declared: total,
                present: bytes.len(),
            });
        }
        Some(total) => total,
    };
    if uncompressed_size > MAX_UNCOMPRESSED_SIZE {
        return Err(BundleError::UncompressedTooLarge {
            size: uncompressed_size,
            limit: MAX_UNCOMPRESSED_SIZE,
        });
    }
    let payload = &bytes[header_len..payload_end as usize];
    let decoder = |method: Compression, e: &dyn std::fmt::Display| BundleError::Decoder {
        method,
        message: e.to_string(),
    };
    // Read at most one byte more than declared, so a lying header is caught
    // without decompressing an unbounded stream.
    let limit = uncompressed_size + 1;
    let mut out = Vec::with_capacity(uncompressed_size.min(64 << 20) as usize);
    match method {
        0 => {
            flate2::read::ZlibDecoder::new(payload)
                .take(limit)
                .read_to_end(&mut out)
                .map_err(|e| decoder(Compression::Zlib, &e))?;
        }
        1 => {
            ruzstd::decoding::StreamingDecoder::new(payload)
                .map_err(|e| decoder(Compression::Zstd, &e))?
                .take(limit)
                .read_to_end(&mut out)
                .map_err(|e| decoder(Compression::Zstd, &e))?;
        }
        method => return Err(BundleError::CompressionMethod { method }),
    }
    if out.len() as u64 != uncompressed_size {
        return Err(BundleError::SizeMismatch {
            decompressed: out.len(),
            declared: uncompressed_size,
        });
    }
    let digest = Md5::digest(&out);
    let mut first8 = [0u8; 8];
    first8.copy_from_slice(&digest[..8]);
    if u64::from_le_bytes(first8) != hash {
        return Err(BundleError::Md5Mismatch);
    }
    Ok(out)
}
