//! Where graded lines go, in log order: the results file, the ledger, the summary and the
//! list of skipped lines. Attempts the log does not number are numbered here.

use crate::commands::grade::line::{GradedLine, LineCounts, LineOutput, attempt_at};
use crate::commands::ledger::LedgerRows;
use crate::problems::Problems;
use crate::results_file::ResultWriter;
use proctor_core::summary::ScorecardBuilder;
use proctor_core::task::Suite;
use std::path::Path;

/// Attempt numbers per task: a line's own, else one more than the highest seen so far.
/// Tasks are known by their position in the suite.
#[derive(Debug, Default)]
pub struct AttemptCounter {
    next: Vec<u64>,
}

impl AttemptCounter {
    /// The attempt of a line of the task at `slot` in the suite; counting the same given
    /// attempt twice changes nothing. After the largest number a log can give, an
    /// unnumbered line repeats it, as a line that gives an attempt twice does, rather than
    /// wrapping round to attempt 0.
    pub fn resolve(&mut self, slot: usize, given: Option<u64>) -> u64 {
        if self.next.len() <= slot {
            self.next.resize(slot + 1, 0);
        }
        let next = &mut self.next[slot];
        let attempt = given.unwrap_or(*next);
        *next = (*next).max(attempt.saturating_add(1));
        attempt
    }
}

#[derive(Debug)]
pub struct Sink {
    results: Option<ResultWriter>,
    ledger: Option<LedgerRows>,
    pub summary: ScorecardBuilder,
    /// Each suite task's tags, by position, when scorecards are split by tag.
    tags: Vec<Vec<String>>,
    pub problems: Problems,
    pub attempts: AttemptCounter,
    /// The label of every graded line (`--label`).
    label: Option<String>,
}

impl Sink {
    pub fn new(out: Option<&Path>, ledger: Option<LedgerRows>) -> anyhow::Result<Sink> {
        Ok(Sink {
            results: out.map(ResultWriter::create).transpose()?,
            ledger,
            summary: ScorecardBuilder::default(),
            tags: Vec::new(),
            problems: Problems::default(),
            attempts: AttemptCounter::default(),
            label: None,
        })
    }

    /// Counts every graded line under `label` (`--label`).
    pub fn label_lines(&mut self, label: Option<&str>) {
        self.label = label.map(str::to_owned);
    }

    /// Summarises as `args` ask: pooled or not, split by the tags of `suite`'s tasks or not.
    pub fn summarise(&mut self, args: &crate::args::SummaryArgs, suite: &Suite) {
        let options = args.scorecard_options();
        self.summary = ScorecardBuilder::new(options);
        if options.split.is_some() {
            self.tags = suite.tasks.iter().map(|t| t.tags.clone()).collect();
        }
    }

    /// Takes graded lines (a chunk, or one line) whose result lines are all of `text`, in
    /// order. When every line gave its attempt, `text` is written as it is, in one piece.
    /// The lines are left for the caller to drop: memory is best freed by the thread that
    /// allocated it.
    pub fn accept_chunk(&mut self, outputs: &mut [LineOutput], text: &[u8]) -> anyhow::Result<()> {
        let whole = outputs.iter().all(|output| match output {
            LineOutput::Skipped(_) => true,
            LineOutput::Graded(graded) => graded.given_attempt.is_some(),
        });
        for output in outputs {
            match output {
                LineOutput::Skipped(message) => self.problems.report(std::mem::take(message)),
                LineOutput::Graded(graded) => self.accept_graded(graded, text, !whole)?,
            }
        }
        match &mut self.results {
            Some(results) if whole => results.write_text(&[text]),
            _ => Ok(()),
        }
    }

    /// Numbers, tallies and (with `write`) writes one graded line. The line is taken by
    /// reference: moving a result line out of its box copies several hundred bytes.
    fn accept_graded(
        &mut self,
        graded: &mut GradedLine,
        text: &[u8],
        write: bool,
    ) -> anyhow::Result<()> {
        let GradedLine {
            counts,
            slot,
            text: range,
            problems,
            given_attempt,
        } = graded;
        let given_attempt = *given_attempt;
        let text = &text[range.clone()];
        for problem in problems.drain(..) {
            self.problems.report(problem);
        }
        let attempt = self.attempts.resolve(*slot, given_attempt);
        if let LineCounts::Result(result) = counts {
            result.attempt = attempt;
        }
        if let Some(results) = self.results.as_mut().filter(|_| write) {
            match given_attempt {
                Some(_) => results.write_text(&[text])?,
                None => {
                    // The placeholder `0` gives way to the number.
                    let at = attempt_at(text);
                    let number = attempt.to_string();
                    results.write_text(&[&text[..at], number.as_bytes(), &text[at + 1..]])?;
                }
            }
        }
        if let (Some(ledger), LineCounts::Result(result)) = (&mut self.ledger, &*counts) {
            ledger.push(result)?;
        }
        let tags = self.tags.get(*slot).map_or(&[][..], Vec::as_slice);
        let counted = counts.counted(attempt, self.label.as_deref());
        self.summary.add_counted_in_slot(*slot, &counted, tags);
        Ok(())
    }

    /// Flushes the results and commits the ledger rows.
    pub fn finish(self) -> anyhow::Result<(ScorecardBuilder, Problems)> {
        if let Some(results) = self.results {
            results.finish()?;
        }
        if let Some(ledger) = self.ledger {
            ledger.commit()?;
        }
        Ok((self.summary, self.problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unnumbered_lines_follow_the_highest_attempt_of_their_task() {
        let mut attempts = AttemptCounter::default();
        let numbered: Vec<u64> = [(0, None), (1, Some(4)), (0, None), (1, None), (0, Some(0))]
            .into_iter()
            .map(|(slot, given)| attempts.resolve(slot, given))
            .collect();
        assert_eq!(numbered, [0, 4, 1, 5, 0]);
    }

    #[test]
    fn after_the_largest_attempt_an_unnumbered_line_repeats_it_rather_than_wrapping() {
        let mut attempts = AttemptCounter::default();
        assert_eq!(attempts.resolve(0, Some(u64::MAX)), u64::MAX);
        assert_eq!(attempts.resolve(0, None), u64::MAX);
        assert_eq!(attempts.resolve(0, None), u64::MAX);
    }
}
