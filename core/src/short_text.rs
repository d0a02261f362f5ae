//! Comparing short texts (tool names, keys, labels, argument values) without calling the
//! C library.
//!
//! `a == b` on strings compares lengths and then calls `memcmp`, even for empty strings.
//! Grading a log compares a few short texts per line, and on some machines each such call
//! costs far more than the comparison itself: a profile of `grade` on a refund log found a
//! tenth of its time in `memcmp` from one comparison of two empty labels a line. Short
//! texts are compared here a word at a time, inlined; long ones still go to `memcmp`, which
//! is fastest for them.

/// Texts longer than this are compared by `memcmp`.
const SHORT: usize = 32;

/// Whether `a` and `b` are the same bytes.
#[inline]
#[must_use]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let length = a.len();
    if length > SHORT {
        return a == b;
    }
    // Words from both ends, overlapping in the middle when the text is shorter than they
    // are together: two words cover up to 16 bytes, four up to 32. No branch per byte.
    if length >= 8 {
        let word = |text: &[u8], at: usize| {
            u64::from_le_bytes(text[at..at + 8].try_into().expect("eight bytes"))
        };
        let mut diff = (word(a, 0) ^ word(b, 0)) | (word(a, length - 8) ^ word(b, length - 8));
        if length > 16 {
            diff |= (word(a, 8) ^ word(b, 8)) | (word(a, length - 16) ^ word(b, length - 16));
        }
        return diff == 0;
    }
    if length >= 4 {
        let word = |text: &[u8], at: usize| {
            u32::from_le_bytes(text[at..at + 4].try_into().expect("four bytes"))
        };
        return (word(a, 0) ^ word(b, 0)) | (word(a, length - 4) ^ word(b, length - 4)) == 0;
    }
    a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// Whether `a` and `b` are the same text.
#[inline]
#[must_use]
pub fn same_text(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

/// Whether `text` starts with `prefix`.
#[inline]
#[must_use]
pub fn starts_with_bytes(text: &[u8], prefix: &[u8]) -> bool {
    text.get(..prefix.len())
        .is_some_and(|start| same_bytes(start, prefix))
}

/// A text looked up in a map whose keys are `String`s, compared by [`same_text`]. It
/// hashes as the `String` of the same text does.
#[derive(Debug, Clone, Copy, Hash)]
pub struct ShortKey<'a>(pub &'a str);

impl hashbrown::Equivalent<String> for ShortKey<'_> {
    fn equivalent(&self, key: &String) -> bool {
        same_text(self.0, key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn empty_texts_are_the_same_and_differ_from_any_other() {
        assert!(same_text("", ""));
        assert!(!same_text("", "a"));
        assert!(!same_text("a", ""));
        assert!(starts_with_bytes(b"abc", b""));
        assert!(!starts_with_bytes(b"", b"a"));
    }

    #[test]
    fn a_difference_in_the_last_byte_of_a_long_text_is_seen() {
        let a = "x".repeat(40);
        let b = format!("{}y", "x".repeat(39));
        assert!(!same_text(&a, &b));
        assert!(same_text(&a, &a.clone()));
    }

    #[test]
    fn a_short_key_finds_the_string_key_of_the_same_text() {
        let mut map: hashbrown::HashMap<String, usize, crate::fast_hash::FastBuild> =
            hashbrown::HashMap::default();
        for (at, id) in ["", "a", "refund_A1", &"x".repeat(40)]
            .into_iter()
            .enumerate()
        {
            map.insert(id.to_owned(), at);
        }
        assert_eq!(map.get(&ShortKey("")), Some(&0));
        assert_eq!(map.get(&ShortKey("refund_A1")), Some(&2));
        assert_eq!(map.get(&ShortKey(&"x".repeat(40))), Some(&3));
        assert_eq!(map.get(&ShortKey("refund_A2")), None);
    }

    proptest! {
        #[test]
        fn same_bytes_agrees_with_equality(
            a in proptest::collection::vec(0u8..4, 0..40),
            b in proptest::collection::vec(0u8..4, 0..40),
        ) {
            prop_assert_eq!(same_bytes(&a, &b), a == b);
            prop_assert!(same_bytes(&a, &a.clone()));
            prop_assert_eq!(starts_with_bytes(&a, &b), a.starts_with(&b));
        }

        #[test]
        fn a_change_of_any_one_byte_is_seen(
            a in proptest::collection::vec(any::<u8>(), 1..40),
            at in any::<proptest::sample::Index>(),
            flip in 1u8..=255,
        ) {
            let mut b = a.clone();
            let at = at.index(a.len());
            b[at] ^= flip;
            prop_assert!(!same_bytes(&a, &b));
            prop_assert!(!same_bytes(&b, &a));
            prop_assert!(same_bytes(&a[..at], &b[..at]));
        }
    }
}
