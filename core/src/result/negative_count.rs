//! A negative number where a result line holds a count (tokens, calls, the attempt), named
//! by its key: serde says only "invalid value: integer `-5`, expected u64 at line 1 column
//! 171", which points into the line rather than at the field (docs/result-format.md).

/// The key and the value of the negative count `error` is about, when it is about one.
pub(super) fn negative_count(error: &serde_json::Error, line: &str) -> Option<(String, String)> {
    if error.classify() != serde_json::error::Category::Data || error.line() != 1 {
        return None;
    }
    let message = error.to_string();
    let digits = message
        .strip_prefix("invalid value: integer `-")?
        .split('`')
        .next()?;
    // The error is placed just past the number: its key is the last one before it.
    let before = line.get(..error.column().min(line.len()))?;
    let colon = before.rfind(':')?;
    let quoted = before[..colon].trim_end().strip_suffix('"')?;
    let key = &quoted[quoted.rfind('"')? + 1..];
    Some((key.to_owned(), format!("-{digits}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::ResultLine;

    fn named(line: &str) -> Option<(String, String)> {
        let error = serde_json::from_str::<ResultLine>(line).unwrap_err();
        negative_count(&error, line)
    }

    #[test]
    fn a_negative_count_is_named_by_its_key() {
        let named = |line: &str| named(line).map(|(key, value)| format!("{key} {value}"));
        assert_eq!(
            named(r#"{"task": "a", "cost": {"usd": "1", "tokens": -5}}"#).as_deref(),
            Some("tokens -5")
        );
        assert_eq!(
            named(r#"{"task": "a", "cost": {"models": [{"role": "agent", "input_tokens": -12}]}}"#)
                .as_deref(),
            Some("input_tokens -12")
        );
        assert_eq!(
            named(r#"{"task": "a", "attempt": -1}"#).as_deref(),
            Some("attempt -1")
        );
        assert_eq!(named(r#"{"task": "a", "attempt": "x"}"#), None);
        assert_eq!(named(r#"{"task": "a", "attempt": 1.5}"#), None);
    }
}
