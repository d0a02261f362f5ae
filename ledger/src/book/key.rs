//! The identity of a ledger row, so that adding the same results twice adds nothing.
//!
//! Two rows are the same when they record the same attempt (time, label, task, attempt
//! number) and the same calls (role, provider, model, service tier, and whether the
//! long-context tier applied). The run id and suite are left out: the same results added
//! by `grade --ledger` and again by `ledger add` are still the same rows.

use super::FastBuild;
use super::columns::Col;
use super::read::RawRow;
use crate::pricing::LONG_CONTEXT_SUFFIX;
use std::hash::{BuildHasher, DefaultHasher, Hash, Hasher};

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
    let mut h = FastBuild::default().build_hasher();
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
