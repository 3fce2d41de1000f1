//! A hasher for sets keyed by registry ids (slotmap keys): they hash as
//! one `u64` of index and version, already distinct, so one multiply
//! spreads them over the table. SipHash's resistance to chosen keys buys
//! nothing here (the ids are ours) and costs more than the rest of
//! recording a dispatch's buffer use.

use std::hash::{BuildHasherDefault, Hasher};

/// Hasher state: the last `u64` written, multiplied by a 64-bit odd
/// constant (Fibonacci hashing).
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
        self.0 = (n ^ self.0).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// `HashSet`/`HashMap` parameter for id keys.
pub(crate) type IdHash = BuildHasherDefault<IdHasher>;
