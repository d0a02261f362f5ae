//! The identity of a ledger row, so that adding the same results twice adds nothing.
//!
//! Two rows are the same when they record the same attempt (time, label, task, attempt
//! number) and the same calls (role, provider, model, service tier, and whether the
//! long-context tier applied). The run id and suite are left out: the same results added
//! by `grade --ledger` and again by `ledger add` are still the same rows.

use super::columns::Col;
use super::read::RawRow;
use crate::pricing::LONG_CONTEXT_SUFFIX;
use std::hash::{DefaultHasher, Hash, Hasher};

/// A 128-bit digest of a row's identity (two independent 64-bit hashes).
pub(crate) fn row_key(row: &RawRow<'_>) -> u128 {
    let parts = [
        row.bytes(Col::RecordedAt),
        row.bytes(Col::Label),
        row.bytes(Col::Task),
        row.bytes(Col::Attempt),
        row.bytes(Col::Role),
        row.bytes(Col::Provider),
        row.bytes(Col::Model),
        row.bytes(Col::ServiceTier),
    ];
    let long = contains(row.bytes(Col::PriceId), LONG_CONTEXT_SUFFIX.as_bytes());
    let mut a = DefaultHasher::new();
    let mut b = DefaultHasher::new();
    0xa5u8.hash(&mut b);
    for h in [&mut a, &mut b] {
        parts.hash(h);
        long.hash(h);
    }
    (u128::from(a.finish()) << 64) | u128::from(b.finish())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The identity of an attempt (for counting runs): time, run, suite, label, task, attempt.
pub(crate) fn attempt_key(row: &RawRow<'_>, group: usize) -> u64 {
    let mut h = FastHasher::default();
    for part in [
        row.bytes(Col::RecordedAt),
        row.bytes(Col::RunId),
        row.bytes(Col::Suite),
        row.bytes(Col::Label),
        row.bytes(Col::Task),
        row.bytes(Col::Attempt),
    ] {
        h.write(part);
        h.write_u8(0xff);
    }
    h.write_usize(group);
    h.finish()
}

/// A fast non-cryptographic hasher for the report's hot loop: eight bytes at a time, a
/// multiply and rotate per word (as rustc's FxHash), and a full avalanche at the end so that
/// every input bit reaches every output bit. Not for untrusted keys chosen to collide.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        // MurmurHash3's 64-bit finaliser.
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        }
        let rest = chunks.remainder();
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ ((bytes.len() as u64) << 56));
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

/// Builds [`FastHasher`]s, for the report's maps.
pub(crate) type FastBuild = std::hash::BuildHasherDefault<FastHasher>;

/// A hasher for keys that are already well-mixed 64-bit digests (the attempt keys): it
/// passes them through instead of hashing them again.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A set of digests, hashed by [`PassThrough`].
pub(crate) type DigestSet =
    std::collections::HashSet<u64, std::hash::BuildHasherDefault<PassThrough>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn hash(parts: &[&[u8]]) -> u64 {
        let mut h = FastHasher::default();
        for p in parts {
            h.write(p);
            h.write_u8(0xff);
        }
        h.finish()
    }

    #[test]
    fn fast_hashes_of_near_identical_keys_do_not_collide() {
        let mut seen = HashSet::new();
        for second in 0..200_000u32 {
            let stamp = format!(
                "2026-11-{:02}T{:02}:{:02}:{:02}Z",
                1 + second / 86_400 % 28,
                second / 3600 % 24,
                second / 60 % 60,
                second % 60
            );
            for task in ["t1", "t10"] {
                assert!(seen.insert(hash(&[stamp.as_bytes(), b"run1", task.as_bytes(), b"0"])));
            }
        }
        // Field boundaries count: ("ab", "c") is not ("a", "bc").
        assert_ne!(hash(&[b"ab", b"c"]), hash(&[b"a", b"bc"]));
    }
}
