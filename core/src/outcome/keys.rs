//! The extra keys a caller asks a reader for (a task id, an attempt, a timestamp), and a
//! cheap test that turns most other keys away.

use crate::short_text::same_text;

/// The most extra keys a reader takes (they are tracked as bits).
pub(super) const MAX_EXTRA_KEYS: usize = 64;

/// A set of keys as 64 bits, one for each key (from its length and its first and last
/// bytes): a key whose bit is not set is none of them. Most keys of a line are outcome
/// fields, not the extra keys asked for, and are turned away by one test instead of a
/// comparison with each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyFilter(u64);

impl KeyFilter {
    /// The filter that lets every one of `keys` through.
    #[must_use]
    pub fn of<S: AsRef<str>>(keys: &[S]) -> Self {
        KeyFilter(
            keys.iter()
                .fold(0, |bits, key| bits | key_bit(key.as_ref().as_bytes())),
        )
    }

    /// False when `key` is none of the filter's keys; true when it may be one.
    #[inline]
    fn may_hold(self, key: &str) -> bool {
        self.0 & key_bit(key.as_bytes()) != 0
    }
}

/// A key's bit among 64, from its length and its first and last bytes: equal keys have the
/// same bit, and most different keys of a line do not.
#[inline]
fn key_bit(key: &[u8]) -> u64 {
    let ends = match key {
        [] => 0,
        [first, .., last] => usize::from(*first) ^ (usize::from(*last) << 2),
        [only] => usize::from(*only),
    };
    1 << (key.len().wrapping_mul(31).wrapping_add(ends) % 64)
}

/// Which of `extra_keys` `key` is, as bits (bit `i` for the key at `i`); `filter` is theirs.
#[inline]
pub(super) fn extra_bits<S: AsRef<str>>(extra_keys: &[S], filter: KeyFilter, key: &str) -> u64 {
    if !filter.may_hold(key) {
        return 0;
    }
    extra_keys
        .iter()
        .enumerate()
        .filter(|(_, extra)| same_text(extra.as_ref(), key))
        .fold(0, |bits, (i, _)| bits | 1 << i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_filter_lets_its_own_keys_through_and_turns_most_others_away() {
        let keys = [
            "order",
            "attempt",
            "run",
            "timestamp",
            "recorded_at",
            "started_at",
        ];
        let filter = KeyFilter::of(&keys);
        for key in keys {
            assert!(filter.may_hold(key), "{key}");
        }
        let others = ["trajectory", "status", "answer", "usage", "steps", "error"];
        assert!(others.iter().filter(|key| filter.may_hold(key)).count() <= 1);
        // A key that shares a bit with one asked for is still compared, not taken for it.
        let twin = (b'a'..=b'z')
            .map(|first| format!("{}rder", first as char))
            .chain((0..64).map(|n| format!("o{}", "x".repeat(n))))
            .find(|key| key != "order" && filter.may_hold(key))
            .expect("64 bits hold a collision among 90 keys");
        assert_eq!(extra_bits(&keys, filter, &twin), 0);
        assert_eq!(extra_bits(&keys, filter, "run"), 0b100);
    }
}
