//! Where graded lines go, in log order: every output, and the list of skipped lines.
//! Attempts the log does not number are numbered here.

use crate::commands::grade::line::{GradedLine, LineCounts, LineOutput, attempt_at};
use crate::outputs::{Attempt, Outputs, Text};
use crate::problems::Problems;

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
    /// The outputs that take each attempt (the results file, the ledger); the outputs
    /// of the conclusion are added once grading ends.
    outputs: Outputs<'static>,
    /// Each suite task's tags, by position, when scorecards are split by tag.
    tags: Vec<Vec<String>>,
    pub problems: Problems,
    pub attempts: AttemptCounter,
    /// The label of every graded line (`--label`).
    label: Option<String>,
    /// Whether an output reads the whole line.
    reads_line: bool,
}

impl Sink {
    /// Graded lines go to `outputs`, under `label`; `tags` are each suite task's, by
    /// position, when the scorecards are split by them (else empty).
    pub fn new(outputs: Outputs<'static>, tags: Vec<Vec<String>>, label: Option<&str>) -> Sink {
        Sink {
            reads_line: outputs.reads().line,
            outputs,
            tags,
            problems: Problems::default(),
            attempts: AttemptCounter::default(),
            label: label.map(str::to_owned),
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
        match whole {
            true => self.outputs.batch(text),
            false => Ok(()),
        }
    }

    /// Numbers one graded line and hands it to the outputs, its text written by itself
    /// when `write`. The line is taken by reference: moving a result line out of its box
    /// copies several hundred bytes.
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
            self.problems.report_settled(problem, |m| eprintln!("{m}"));
        }
        let attempt = self.attempts.resolve(*slot, given_attempt);
        if let LineCounts::Result(result) = counts {
            result.attempt = attempt;
        }
        // The placeholder `0` of an unnumbered line gives way to the number.
        let number;
        let renumbered: [&[u8]; 3];
        let parts: &[&[u8]] = match given_attempt {
            _ if !write || text.is_empty() => &[],
            Some(_) => std::slice::from_ref(&text),
            None => {
                let at = attempt_at(text);
                number = attempt.to_string();
                renumbered = [&text[..at], number.as_bytes(), &text[at + 1..]];
                &renumbered
            }
        };
        // Only an output that reads the whole line is given it: a line no output reads
        // whole keeps only what the summary counts.
        let line = match &*counts {
            LineCounts::Result(result) if self.reads_line => Some(&**result),
            _ => None,
        };
        let tags = self.tags.get(*slot).map_or(&[][..], Vec::as_slice);
        let counted = counts.counted(attempt, self.label.as_deref());
        let text = match write {
            true => Text::Parts(parts),
            false => Text::Batched,
        };
        self.outputs
            .attempt(&Attempt::in_slot(*slot, counted, line, text, tags))
    }

    /// What the outputs read of each line.
    pub fn reads(&self) -> crate::outputs::Reads {
        self.outputs.reads()
    }

    /// The outputs, to conclude with, and the skipped input.
    pub fn finish(self) -> (Outputs<'static>, Problems) {
        (self.outputs, self.problems)
    }

    /// A sink that writes the results to `out`, for tests.
    #[cfg(test)]
    pub fn writing(out: Option<&std::path::Path>) -> Sink {
        use crate::outputs::results::ResultsOut;
        use crate::results_file::ResultWriter;
        let mut outputs = Outputs::new(Default::default());
        let writer = out.map(|out| ResultWriter::create(out).unwrap());
        outputs.add(ResultsOut::new(writer, false));
        Sink::new(outputs, Vec::new(), None)
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
