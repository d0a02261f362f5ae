//! The outcome reader: the scanner for plain lines, the reference reader for the rest.

use super::extra::Extra;
use super::keys::{KeyFilter, MAX_EXTRA_KEYS};
use super::reference::{NotAnObject, ReadOutcome, read_line};
use super::scan::scan_into;
use super::{Outcome, OutcomeError};

/// Reads outcomes from JSON text (log lines), plus the values of the extra keys asked for.
///
/// Problems with the outcome's fields are returned beside the extra values rather than as
/// errors, so that the caller can check its own fields first; the `serde_json` error means
/// the JSON itself is bad. What it reads is what the reference reader (the line parsed into
/// a `serde_json::Value`) reads; plain lines are only read faster.
#[derive(Debug, Clone, Copy)]
pub struct OutcomeReader<'k, S> {
    extra_keys: &'k [S],
    filter: KeyFilter,
}

impl<'k, S: AsRef<str>> OutcomeReader<'k, S> {
    /// A reader that also returns the values of `extra_keys` (at most 64). A key may be
    /// an outcome field too (`--task-key status`); it is then read as both.
    pub fn new(extra_keys: &'k [S]) -> Self {
        Self::with_filter(extra_keys, KeyFilter::of(extra_keys))
    }

    /// [`OutcomeReader::new`] with the filter of `extra_keys` made once, by
    /// [`KeyFilter::of`] on the same keys, for a caller that reads many lines.
    pub fn with_filter(extra_keys: &'k [S], filter: KeyFilter) -> Self {
        assert!(
            extra_keys.len() <= MAX_EXTRA_KEYS,
            "at most {MAX_EXTRA_KEYS} extra keys"
        );
        debug_assert_eq!(filter, KeyFilter::of(extra_keys), "a filter of other keys");
        OutcomeReader { extra_keys, filter }
    }

    /// Reads one JSON document (a log line). Trailing text after the value is an error,
    /// as it is for `serde_json::from_str`.
    pub fn read_str(self, text: &str) -> serde_json::Result<Result<ReadOutcome, NotAnObject>> {
        let mut outcome = Outcome::default();
        let mut extras = Vec::new();
        if scan_into(
            text,
            self.extra_keys,
            self.filter,
            &mut outcome,
            &mut extras,
        )
        .is_some()
        {
            return Ok(Ok(ReadOutcome {
                outcome: Ok(outcome),
                extras: extras
                    .iter()
                    .map(|extra| extra.as_ref().and_then(|extra| extra.to_value(text)))
                    .collect(),
            }));
        }
        read_line(text, self.extra_keys)
    }

    /// [`OutcomeReader::read_str`] into `outcome`, whose lists keep their room, with the
    /// extra keys' values in `extras`: reading line after line into the same two
    /// allocates nothing for a plain line. After an outcome error, `outcome` must not be
    /// read.
    pub fn read_str_into(
        self,
        text: &str,
        outcome: &mut Outcome,
        extras: &mut Vec<Option<Extra>>,
    ) -> serde_json::Result<Result<Result<(), OutcomeError>, NotAnObject>> {
        if scan_into(text, self.extra_keys, self.filter, outcome, extras).is_some() {
            return Ok(Ok(Ok(())));
        }
        Ok(read_line(text, self.extra_keys)?.map(|read| {
            extras.clear();
            extras.extend(read.extras.into_iter().map(|v| v.map(Extra::Value)));
            read.outcome.map(|read| *outcome = read)
        }))
    }
}

#[cfg(test)]
mod tests;
