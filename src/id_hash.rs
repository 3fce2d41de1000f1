//! A hasher for maps keyed by our own `u64`s: registry ids (slotmap keys,
//! which hash as one `u64` of index and version) and device addresses
//! (page-aligned, so their low bits are all zero). One 64x64->128-bit
//! multiply, folded, spreads both over the table's low bits (its bucket
//! index) and high bits (its tag). SipHash's resistance to chosen keys
//! buys nothing here (the keys are ours) and costs more than the rest of
//! recording a dispatch's buffer use.

use std::hash::{BuildHasherDefault, Hasher};

/// Hasher state: the folded product of what was written and a 64-bit odd
/// constant.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b) ^ self.0.rotate_left(8));
        }
    }

    fn write_u64(&mut self, n: u64) {
        let product = u128::from(n ^ self.0) * 0x9e37_79b9_7f4a_7c15;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }
}

/// `HashSet`/`HashMap` parameter for id keys.
pub(crate) type IdHash = BuildHasherDefault<IdHasher>;

#[cfg(test)]
mod tests {
    use std::hash::{BuildHasher, Hash};

    use super::IdHash;

    /// Page-aligned addresses and small ids land in most of a table's
    /// buckets (the low bits) and spread over the tags (the top 7 bits).
    #[test]
    fn aligned_keys_spread_over_buckets_and_tags() {
        let hash = |key: u64| {
            let mut h = IdHash::default().build_hasher();
            key.hash(&mut h);
            std::hash::Hasher::finish(&h)
        };
        for step in [1u64, 4096, 1 << 21] {
            let hashes: Vec<u64> = (0..4096u64)
                .map(|k| hash(0x7f00_0000_0000 + k * step))
                .collect();
            let mut buckets: Vec<u64> = hashes.iter().map(|h| h & 1023).collect();
            buckets.sort_unstable();
            buckets.dedup();
            let mut tags: Vec<u64> = hashes.iter().map(|h| h >> 57).collect();
            tags.sort_unstable();
            tags.dedup();
            assert!(
                buckets.len() > 900,
                "step {step}: {} of 1024 buckets",
                buckets.len()
            );
            assert!(tags.len() > 120, "step {step}: {} of 128 tags", tags.len());
        }
    }
}
