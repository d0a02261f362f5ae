//! Where the graded attempts of `run`, `grade` and `judge` go, behind one trait.
//!
//! Each output is one [`AttemptSink`]: it takes every graded attempt as it is settled,
//! is closed when no attempt follows, is shown the scorecards of them all, and may fail
//! the command last. [`Outputs`] keeps the scorecard tally the outputs share and hands
//! each attempt to every output in turn; [`Outputs::conclude`] is the one ending of the
//! three commands. A new output is one new file here, added to the commands that want it.
//!
//! - [`results`]: the results file; [`ledger`]: the cost ledger; [`progress`]: the
//!   progress lines; [`scorecards`]: the printed summary; [`page`]: the HTML page;
//!   [`crashes`]: the broken-set-up check of `run`; [`gate`]: `--min-pass-rate`;
//!   [`attempts_seen`]: what an output is given, for contributors.

pub mod attempts_seen;
pub mod crashes;
pub mod gate;
pub mod ledger;
pub mod page;
pub mod progress;
pub mod results;
pub mod scorecards;

use crate::args::{Format, SummaryArgs};
use anyhow::Context;
use gate::Gate;
use page::{PageOptions, PageOut, ResultsFile};
use proctor_core::result::ResultLine;
use proctor_core::summary::{Counted, ScorecardBuilder, ScorecardOptions, Scorecards};
use scorecards::ScorecardsOut;

/// One output of the graded attempts. Every step has a default that does nothing, so an
/// output implements only the steps it takes part in.
pub trait AttemptSink {
    /// What of each attempt this output reads (nothing, by default: the scorecards are
    /// counted for every output). A command that keeps less of an attempt for speed keeps
    /// what its outputs read, and hands an output that reads no line none.
    fn reads(&self) -> Reads {
        Reads::NOTHING
    }

    /// Takes one graded attempt, in the order the command settles them.
    fn attempt(&mut self, _attempt: &Attempt<'_>) -> anyhow::Result<()> {
        Ok(())
    }

    /// Takes result lines already serialised, in order, of attempts given as
    /// [`Text::Batched`] before this call.
    fn batch(&mut self, _text: &[u8]) -> anyhow::Result<()> {
        Ok(())
    }

    /// No attempt follows, also when the command stops early: flushes and commits what
    /// was taken, so that nothing finished is lost.
    fn close(&mut self) -> anyhow::Result<()> {
        Ok(())
    }

    /// Shows the scorecards of every attempt, under `title`.
    fn present(&mut self, _title: &str, _cards: &Scorecards) -> anyhow::Result<()> {
        Ok(())
    }

    /// Fails the command when the attempts do not pass this output's check. Runs after
    /// every output has presented and after the command's own failures.
    fn check(&self, _cards: &Scorecards) -> anyhow::Result<()> {
        Ok(())
    }
}

/// What of each attempt an output reads ([`AttemptSink::reads`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reads {
    /// The result line as it is written ([`Attempt::text`]).
    pub text: bool,
    /// The whole result line, every field ([`Attempt::line`]).
    pub line: bool,
}

impl Reads {
    pub const NOTHING: Reads = Reads {
        text: false,
        line: false,
    };
    pub const TEXT: Reads = Reads {
        text: true,
        line: false,
    };
    pub const LINE: Reads = Reads {
        text: false,
        line: true,
    };

    /// What either reads.
    pub fn and(self, other: Reads) -> Reads {
        Reads {
            text: self.text || other.text,
            line: self.line || other.line,
        }
    }
}

/// One graded attempt, as the outputs read it.
#[derive(Debug)]
pub struct Attempt<'a> {
    /// The whole result line, every field of it, when an output reads it
    /// ([`Reads::line`]); `run` and `judge` always give it.
    pub line: Option<&'a ResultLine>,
    /// How the line reaches the results file.
    pub text: Text<'a>,
    /// The task's tags, for scorecards split by tag.
    pub tags: &'a [String],
    tally: Tally<'a>,
}

/// How an attempt's result line reaches the results file.
#[derive(Debug, Clone, Copy)]
pub enum Text<'a> {
    /// Serialised from [`Attempt::line`].
    Line,
    /// Serialised already, newline included, in parts.
    Parts(&'a [&'a [u8]]),
    /// Written with its neighbours, in one piece, by a later [`AttemptSink::batch`].
    Batched,
}

/// What the scorecards count of an attempt.
#[derive(Debug)]
enum Tally<'a> {
    Line(&'a ResultLine),
    /// A line counted at its task's position in the suite, built whole or not.
    InSlot(usize, Counted<'a>),
}

impl<'a> Attempt<'a> {
    /// A result line built whole, written as it is serialised.
    pub fn of_line(line: &'a ResultLine, tags: &'a [String]) -> Attempt<'a> {
        Attempt {
            line: Some(line),
            text: Text::Line,
            tags,
            tally: Tally::Line(line),
        }
    }

    /// A line counted as `counted` under its task's position `slot` in the suite.
    pub fn in_slot(
        slot: usize,
        counted: Counted<'a>,
        line: Option<&'a ResultLine>,
        text: Text<'a>,
        tags: &'a [String],
    ) -> Attempt<'a> {
        Attempt {
            line,
            text,
            tags,
            tally: Tally::InSlot(slot, counted),
        }
    }
}

/// Every output of a command, and the scorecard tally they are shown.
pub struct Outputs<'a> {
    scorecards: ScorecardBuilder,
    sinks: Vec<Box<dyn AttemptSink + Send + 'a>>,
    closed: bool,
}

impl std::fmt::Debug for Outputs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outputs")
            .field("sinks", &self.sinks.len())
            .field("closed", &self.closed)
            .finish_non_exhaustive()
    }
}

/// How the attempts ended, besides their results: what [`Outputs::conclude`] decides on.
#[derive(Debug)]
pub struct Ending {
    /// The title the scorecards are shown under.
    pub title: String,
    /// `--k`.
    pub k: Option<u64>,
    /// Why no scorecards are shown (interrupted, grading stopped); `Ok` when they are.
    pub stopped: anyhow::Result<()>,
    /// The command's own failure, returned once the scorecards are shown and before the
    /// outputs' checks (skipped input, attempts that could not run).
    pub failed: anyhow::Result<()>,
}

impl<'a> Outputs<'a> {
    pub fn new(options: ScorecardOptions) -> Outputs<'a> {
        Outputs::after(ScorecardBuilder::new(options))
    }

    /// Outputs whose scorecards count attempts of an earlier invocation already
    /// (`run --resume`): the other outputs have those.
    pub fn after(earlier: ScorecardBuilder) -> Outputs<'a> {
        Outputs {
            scorecards: earlier,
            sinks: Vec::new(),
            closed: false,
        }
    }

    /// Adds the outputs every command has whatever its options: what an output is given,
    /// when `PROCTOR_ATTEMPTS_SEEN` asks for it.
    pub fn with_common(mut self) -> anyhow::Result<Outputs<'a>> {
        if let Some(seen) = attempts_seen::AttemptsSeen::from_env()? {
            self.add(seen);
        }
        Ok(self)
    }

    /// Adds an output after the others: outputs take each step in the order added.
    pub fn add(&mut self, sink: impl AttemptSink + Send + 'a) {
        self.sinks.push(Box::new(sink));
    }

    /// Adds the outputs every command that prints scorecards ends with: the scorecards in
    /// `format`, the `--html` page of `results`, and the `--min-pass-rate` gate.
    pub fn add_summary(
        &mut self,
        format: Format,
        summary: &'a SummaryArgs,
        results: ResultsFile,
        page: PageOptions<'a>,
    ) {
        self.add(ScorecardsOut::new(format));
        self.add(PageOut {
            file: results,
            page: summary.html.as_deref(),
            k: summary.k,
            options: page,
        });
        self.add(Gate {
            min_pass_rate: summary.min_pass_rate,
        });
    }

    /// What the outputs read of each attempt, together.
    pub fn reads(&self) -> Reads {
        self.sinks
            .iter()
            .fold(Reads::NOTHING, |reads, sink| reads.and(sink.reads()))
    }

    /// Counts one graded attempt and hands it to every output.
    pub fn attempt(&mut self, attempt: &Attempt<'_>) -> anyhow::Result<()> {
        for sink in &mut self.sinks {
            sink.attempt(attempt)?;
        }
        match &attempt.tally {
            Tally::Line(line) => self.scorecards.add(line, attempt.tags),
            Tally::InSlot(slot, counted) => {
                self.scorecards
                    .add_counted_in_slot(*slot, counted, attempt.tags)
            }
        }
        Ok(())
    }

    /// Hands serialised result lines of [`Text::Batched`] attempts to every output.
    pub fn batch(&mut self, text: &[u8]) -> anyhow::Result<()> {
        self.sinks.iter_mut().try_for_each(|sink| sink.batch(text))
    }

    /// Closes every output, once; [`Outputs::conclude`] closes them too.
    pub fn close(&mut self) -> anyhow::Result<()> {
        if std::mem::replace(&mut self.closed, true) {
            return Ok(());
        }
        // Every output closes whatever another says (a progress bar is cleared though the
        // results file could not be flushed); the first failure is the one returned.
        let mut first = Ok(());
        for sink in &mut self.sinks {
            let closed = sink.close();
            if first.is_ok() {
                first = closed;
            }
        }
        first
    }

    /// Ends a command that graded attempts: closes the outputs, stops when `ending` says
    /// why, shows the scorecards on every output, returns the command's own failure, and
    /// lastly lets every output check the attempts (the gates).
    pub fn conclude(mut self, ending: Ending) -> anyhow::Result<()> {
        self.close()?;
        ending.stopped?;
        let cards = self
            .scorecards
            .finish(ending.k)
            .context("cannot summarise the results")?;
        for sink in &mut self.sinks {
            sink.present(&ending.title, &cards)?;
        }
        ending.failed?;
        self.sinks.iter().try_for_each(|sink| sink.check(&cards))
    }

    /// The scorecards counted so far, for tests.
    #[cfg(test)]
    pub fn into_scorecards(self) -> ScorecardBuilder {
        self.scorecards
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// An output that writes down each step it is asked to take, and fails the step it
    /// is told to (`check` or `close`).
    #[derive(Debug)]
    struct Recorder {
        name: &'static str,
        steps: Arc<Mutex<Vec<String>>>,
        fails: Option<&'static str>,
    }

    impl Recorder {
        fn note(&self, step: &str) {
            self.steps
                .lock()
                .unwrap()
                .push(format!("{} {step}", self.name));
        }
    }

    impl AttemptSink for Recorder {
        fn attempt(&mut self, attempt: &Attempt<'_>) -> anyhow::Result<()> {
            let task = attempt.line.map_or("-", |line| line.task.as_str());
            self.note(&format!("attempt {task}"));
            Ok(())
        }
        fn close(&mut self) -> anyhow::Result<()> {
            self.note("close");
            match self.fails {
                Some("close") => Err(anyhow::anyhow!("{} did not close", self.name)),
                _ => Ok(()),
            }
        }
        fn present(&mut self, title: &str, cards: &Scorecards) -> anyhow::Result<()> {
            self.note(&format!("present {title} {}", cards.agents.len()));
            Ok(())
        }
        fn check(&self, _cards: &Scorecards) -> anyhow::Result<()> {
            self.note("check");
            match self.fails {
                Some("check") => Err(anyhow::anyhow!("{} failed", self.name)),
                _ => Ok(()),
            }
        }
    }

    /// Two recorders, `a` failing its check when `a_fails`, after one attempt of task `t`.
    fn outputs(a_fails: bool) -> (Outputs<'static>, Arc<Mutex<Vec<String>>>) {
        outputs_failing(a_fails.then_some("check"))
    }

    /// Two recorders, `a` failing the step `a_fails`, after one attempt of task `t`.
    fn outputs_failing(
        a_fails: Option<&'static str>,
    ) -> (Outputs<'static>, Arc<Mutex<Vec<String>>>) {
        let steps = Arc::new(Mutex::new(Vec::new()));
        let mut outputs = Outputs::new(ScorecardOptions::default());
        for (name, fails) in [("a", a_fails), ("b", None)] {
            outputs.add(Recorder {
                name,
                steps: steps.clone(),
                fails,
            });
        }
        let line = ResultLine::parse(r#"{"task": "t", "passed": true}"#).unwrap();
        outputs.attempt(&Attempt::of_line(&line, &[])).unwrap();
        (outputs, steps)
    }

    fn ending(stopped: anyhow::Result<()>, failed: anyhow::Result<()>) -> Ending {
        Ending {
            title: "run T".to_owned(),
            k: None,
            stopped,
            failed,
        }
    }

    fn taken(steps: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
        steps.lock().unwrap().clone()
    }

    #[test]
    fn every_output_takes_each_step_in_the_order_added() {
        let (outputs, steps) = outputs(false);
        outputs.conclude(ending(Ok(()), Ok(()))).unwrap();
        assert_eq!(
            taken(&steps),
            [
                "a attempt t",
                "b attempt t",
                "a close",
                "b close",
                "a present run T 1",
                "b present run T 1",
                "a check",
                "b check"
            ]
        );
    }

    #[test]
    fn an_output_that_cannot_close_leaves_the_others_to_close_and_ends_the_command() {
        let (outputs, steps) = outputs_failing(Some("close"));
        let error = outputs.conclude(ending(Ok(()), Ok(()))).unwrap_err();
        assert_eq!(error.to_string(), "a did not close");
        assert_eq!(
            taken(&steps),
            ["a attempt t", "b attempt t", "a close", "b close"]
        );
    }

    #[test]
    fn a_stopped_command_closes_its_outputs_and_shows_nothing() {
        let (outputs, steps) = outputs(false);
        let error = outputs
            .conclude(ending(Err(anyhow::anyhow!("interrupted")), Ok(())))
            .unwrap_err();
        assert_eq!(error.to_string(), "interrupted");
        assert_eq!(
            taken(&steps)[2..],
            ["a close".to_owned(), "b close".to_owned()]
        );
    }

    #[test]
    fn the_commands_own_failure_comes_after_the_scorecards_and_before_the_gates() {
        let (outputs, steps) = outputs(true);
        let error = outputs
            .conclude(ending(Ok(()), Err(anyhow::anyhow!("2 lines skipped"))))
            .unwrap_err();
        assert_eq!(error.to_string(), "2 lines skipped");
        assert!(!taken(&steps).iter().any(|step| step.ends_with("check")));
        assert!(taken(&steps).contains(&"b present run T 1".to_owned()));
    }

    #[test]
    fn the_first_failed_check_ends_the_command() {
        let (mut outputs, steps) = outputs(true);
        outputs.close().unwrap();
        let error = outputs.conclude(ending(Ok(()), Ok(()))).unwrap_err();
        assert_eq!(error.to_string(), "a failed");
        let steps = taken(&steps);
        assert_eq!(steps.iter().filter(|s| s.ends_with("close")).count(), 2);
        assert_eq!(steps.last().unwrap(), "a check");
    }
}
