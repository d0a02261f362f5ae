//! The word a typo most likely meant, for "did you mean" in load errors: a misspelt key or
//! tool name must be refused with the spelling that was probably meant.

/// The candidate nearest to `word`, when it is near enough to be a typo: at most two edits
/// away, or a third of the word's length for long names. Ties go to the first candidate.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let most = (word.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(word, candidate), candidate))
        .filter(|(distance, _)| *distance <= most)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance over characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_the_nearest_candidate() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
        let keys = ["before", "requires", "same"];
        assert_eq!(closest("requirez", keys), Some("requires"));
        assert_eq!(closest("sames", keys), Some("same"));
        assert_eq!(closest("color", keys), None);
        // Long tool names allow a third of their length.
        let tools = ["cancel_pending_order", "get_order_details"];
        assert_eq!(
            closest("cancel_pendng_ordr", tools),
            Some("cancel_pending_order")
        );
        assert_eq!(closest("refund", tools), None);
    }
}
