//! A second line for an attempt already merged (docs/merging.md): an exact copy (a file
//! given twice), a rerun that differs only in its `timings` (a shard run again that got the
//! same result), or a conflict (two different results, of which the first is kept).

use proctor_core::result::ResultLine;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// (label, task, attempt): what identifies one attempt across shards.
pub type AttemptKey = (String, String, u64);

/// The attempt a line is of.
pub fn attempt_key(line: &ResultLine) -> AttemptKey {
    (
        line.label.clone().unwrap_or_default(),
        line.task.to_string(),
        line.attempt,
    )
}

/// What a line is, next to the first line of its attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeat {
    /// The attempt's first line: it is merged.
    First,
    /// Byte for byte the first line again.
    Exact { first_file: usize },
    /// The first line again once `timings` is set aside: the same result, run again.
    TimingsOnly { first_file: usize },
    /// A different result for the same attempt.
    Conflict { first_file: usize },
}

/// The first line of each attempt, kept as two hashes rather than the line itself, so that
/// a merge of millions of lines holds little.
#[derive(Debug, Default)]
pub struct FirstLines {
    by_attempt: HashMap<AttemptKey, Fingerprint>,
}

#[derive(Debug, Clone, Copy)]
struct Fingerprint {
    whole: [u8; 32],
    without_timings: [u8; 32],
    file: usize,
}

impl FirstLines {
    /// Says what `line` (whose whole text is `text`, read from file number `file`) is, and
    /// remembers it when it is its attempt's first line.
    pub fn classify(&mut self, line: &mut ResultLine, text: &str, file: usize) -> Repeat {
        let whole: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        let without_timings = hash_without_timings(line);
        let fingerprint = Fingerprint {
            whole,
            without_timings,
            file,
        };
        match self.by_attempt.get(&attempt_key(line)) {
            None => {
                self.by_attempt.insert(attempt_key(line), fingerprint);
                Repeat::First
            }
            Some(first) if first.whole == whole => Repeat::Exact {
                first_file: first.file,
            },
            Some(first) if first.without_timings == without_timings => Repeat::TimingsOnly {
                first_file: first.file,
            },
            Some(first) => Repeat::Conflict {
                first_file: first.file,
            },
        }
    }
}

/// The hash of the line as written with its `timings` left at their default; the line is
/// given back as it was.
fn hash_without_timings(line: &mut ResultLine) -> [u8; 32] {
    let timings = std::mem::take(&mut line.timings);
    let text = line.to_json();
    line.timings = timings;
    Sha256::digest(text.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(passed: bool, duration_ms: u64) -> ResultLine {
        let text = format!(
            r#"{{"format":"proctor.result/1","task":"t","attempt":1,"label":"v1","passed":{passed},"timings":{{"duration_ms":{duration_ms}}}}}"#
        );
        ResultLine::parse(&text).expect("a valid line")
    }

    fn classify(first_lines: &mut FirstLines, mut line: ResultLine, file: usize) -> Repeat {
        let text = line.to_json();
        first_lines.classify(&mut line, &text, file)
    }

    #[test]
    fn merge_tells_exact_copies_timing_only_reruns_and_conflicts_apart() {
        let mut first_lines = FirstLines::default();
        assert_eq!(classify(&mut first_lines, line(true, 10), 0), Repeat::First);
        assert_eq!(
            classify(&mut first_lines, line(true, 10), 1),
            Repeat::Exact { first_file: 0 }
        );
        assert_eq!(
            classify(&mut first_lines, line(true, 99), 2),
            Repeat::TimingsOnly { first_file: 0 }
        );
        assert_eq!(
            classify(&mut first_lines, line(false, 10), 3),
            Repeat::Conflict { first_file: 0 }
        );
    }

    #[test]
    fn merge_gives_the_line_back_with_its_timings() {
        let mut kept = line(true, 42);
        let before = kept.clone();
        hash_without_timings(&mut kept);
        assert_eq!(kept, before);
    }
}
