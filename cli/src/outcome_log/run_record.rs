//! What a result line read back as an outcome keeps of its run (`proctor grade` given the
//! results of `proctor run`): the account it was graded on, the other accounts of its calls,
//! the steps whose arguments were not captured, and the checks the run itself added. Graded
//! again, such a line fails where its run failed it on that evidence.
//!
//! These fields are read only from a line that says it is a result line (`format`
//! `proctor.result/...`): in someone else's log, a field named `checks` or `evidence` is
//! that log's own, ignored like every other field.

use super::value_of;
use crate::run::is_runner_check;
use proctor_core::faults::{FaultFired, FaultMissed};
use proctor_core::grade::{Account, CheckResult, Evidence};
use proctor_core::outcome::{Extra, Outcome};
use proctor_core::result::{ProcessInfo, ResultLine, Timings, fields};
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// The keys read, in the order [`read`] takes their values.
pub const KEYS: [&str; 5] = [
    fields::FORMAT,
    fields::TRAJECTORY_SOURCE,
    fields::UNCAPTURED_ARGS,
    fields::EVIDENCE,
    fields::CHECKS,
];

/// What the run saw beside the line's graded trajectory.
#[derive(Debug, Default)]
pub struct RunRecord {
    /// The other accounts of the calls.
    pub evidence: Evidence,
    /// The checks the run added beside the task's own (a served tool's limits).
    pub runner_checks: Vec<CheckResult>,
    /// What only the runner knew of the attempt.
    pub facts: RunFacts,
}

impl RunRecord {
    /// The record of a line, if it is a result line, in its parts: the other accounts, the
    /// runner's checks, the runner's facts.
    pub fn split(
        record: Option<Box<RunRecord>>,
    ) -> (Option<Evidence>, Vec<CheckResult>, Option<RunFacts>) {
        match record {
            Some(record) => {
                let RunRecord {
                    evidence,
                    runner_checks,
                    facts,
                } = *record;
                (Some(evidence), runner_checks, Some(facts))
            }
            None => (None, Vec::new(), None),
        }
    }
}

/// What only the runner knew of an attempt, as its result line recorded it: graded again,
/// the line keeps it, so that its outputs are given the attempt `run` gave them.
#[derive(Debug, Default, Deserialize)]
pub struct RunFacts {
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    process: Option<ProcessInfo>,
    #[serde(default)]
    timings: Timings,
    #[serde(default)]
    faults_fired: Vec<FaultFired>,
    #[serde(default)]
    faults_missed: Vec<FaultMissed>,
}

impl RunFacts {
    /// When a line's usage is priced: at its own time; a result line without one, when
    /// its run started, as the run priced it.
    pub fn price_time(
        facts: Option<&RunFacts>,
        time: Result<Option<jiff::Timestamp>, proctor_ledger::time::TimeError>,
    ) -> Result<Option<jiff::Timestamp>, proctor_ledger::time::TimeError> {
        match (time, facts.and_then(RunFacts::started_at)) {
            (Ok(None), Some(started)) => started.map(Some),
            (time, _) => time,
        }
    }

    /// When the attempt started, at which the run priced its usage.
    fn started_at(&self) -> Option<Result<jiff::Timestamp, proctor_ledger::time::TimeError>> {
        let started = self.timings.started_at.as_deref()?;
        Some(proctor_ledger::time::parse_time(
            "timings.started_at",
            &serde_json::Value::from(started),
        ))
    }

    /// Writes the facts on `line`. Its label stays the command's (`--label`), by which
    /// the summary counts it.
    pub fn write_on(self, line: &mut ResultLine) {
        line.seed = self.seed;
        line.process = self.process;
        line.timings = self.timings;
        line.faults_fired = self.faults_fired;
        line.faults_missed = self.faults_missed;
    }
}

/// Reads the values of [`KEYS`] (`values`, in that order) of the line `text` into
/// `outcome` and the record; `None` unless the line is a result line. Boxed: most logs are
/// not results, and their lines move through grading without it.
pub fn read(
    values: &[Option<Extra>],
    text: &str,
    outcome: &mut Outcome,
) -> Result<Option<Box<RunRecord>>, String> {
    let [format, source, uncaptured, evidence, checks] = values else {
        unreachable!("one value for each key");
    };
    let is_result = format
        .as_ref()
        .and_then(|format| format.plain_str(text))
        .is_some_and(|format| format.starts_with("proctor.result/"));
    if !is_result {
        return Ok(None);
    }
    if let Some(source) = field(source, text, KEYS[1])? {
        outcome.trajectory_source = source;
    }
    if let Some(uncaptured) = field(uncaptured, text, KEYS[2])? {
        outcome.uncaptured_args = uncaptured;
    }
    let evidence = field::<Vec<Account>>(evidence, text, KEYS[3])?
        .map(|accounts| Evidence::from_record(&accounts).besides(outcome))
        .unwrap_or_default();
    let runner_checks = field::<Vec<CheckResult>>(checks, text, KEYS[4])?
        .unwrap_or_default()
        .into_iter()
        .filter(is_runner_check)
        .collect();
    // Read apart, from the whole line: only result lines have them, and most lines
    // graded are not result lines.
    let facts = serde_json::from_str(text).map_err(|e| format!("result line: {e}"))?;
    Ok(Some(Box::new(RunRecord {
        evidence,
        runner_checks,
        facts,
    })))
}

/// A field's value read as `T`, `None` when the line has none.
fn field<T: DeserializeOwned>(
    value: &Option<Extra>,
    text: &str,
    key: &str,
) -> Result<Option<T>, String> {
    value
        .as_ref()
        .map(|value| {
            serde_json::from_value(value_of(value, text)?)
                .map_err(|e| format!("field `{key}`: {e}"))
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::super::{LineBuffer, LineKeys, read_text};
    use crate::run::is_runner_check;
    use proctor_core::grade::Evidence;
    use proctor_core::outcome::TrajectorySource;
    use proctor_core::result::{ResultLine, fields};

    /// A result line with every field set (docs/result-format.md).
    const EVERY_FIELD: &str = include_str!("../../../fixtures/result/every_field.json");

    const RUN: &str = r#""trajectory": [{"tool": "refund", "args": null}], "trajectory_source": "trace", "uncaptured_args": [1], "evidence": [{"source": "reported", "trajectory": [{"tool": "wipe"}]}]"#;

    #[test]
    fn a_result_line_brings_back_its_run_and_another_log_keeps_its_fields() {
        let keys = LineKeys::new(None);
        let mut buffer = LineBuffer::default();
        let result = format!(r#"{{"format": "proctor.result/1", "task": "t", {RUN}}}"#);
        let head = read_text(&result, &keys, &mut buffer).unwrap().unwrap();
        assert_eq!(buffer.outcome.trajectory_source, TrajectorySource::Trace);
        assert_eq!(buffer.outcome.uncaptured_args, [1]);
        assert_eq!(head.run.unwrap().evidence.accounts().len(), 1);
        // The same fields in a log that is not proctor's, read into the same buffer.
        let foreign = format!(r#"{{"format": "syslog", "task": "t", {RUN}}}"#);
        let head = read_text(&foreign, &keys, &mut buffer).unwrap().unwrap();
        assert_eq!(buffer.outcome.trajectory_source, TrajectorySource::Reported);
        assert!(buffer.outcome.uncaptured_args.is_empty());
        assert!(head.run.is_none());
    }

    #[test]
    fn a_result_line_reads_back_every_field_grading_it_again_takes() {
        let line = ResultLine::parse(EVERY_FIELD).unwrap();
        let text = line.to_json();
        let keys = LineKeys::new(None);
        let mut buffer = LineBuffer::default();
        let head = read_text(&text, &keys, &mut buffer).unwrap().unwrap();
        let outcome = &buffer.outcome;
        // The faults applied to the run's served calls are the run's record, not read back.
        let mut expected = line.outcome();
        expected
            .trajectory
            .iter_mut()
            .for_each(|step| step.faults = None);
        assert_eq!(*outcome, expected);
        let run = head.run.as_deref().expect("a result line");
        let evidence = Evidence::from_record(&line.evidence).besides(outcome);
        let runner_checks: Vec<_> = line.checks.iter().filter(|c| is_runner_check(c)).collect();
        for name in fields::READ_BACK {
            let read_back = match name {
                fields::FORMAT => true,
                fields::TASK => head.task == line.task,
                fields::ATTEMPT => head.attempt == Some(line.attempt),
                fields::STATUS => outcome.status == line.status,
                fields::ANSWER => outcome.answer == line.answer,
                fields::TOOL_CALLS => outcome.tool_calls == line.tool_calls,
                fields::TOOLS_USED => outcome.tools_used.as_ref() == Some(&line.tools_used),
                fields::TRAJECTORY => outcome.trajectory.len() == line.trajectory.len(),
                fields::USAGE => outcome.usage == line.usage,
                fields::STEPS => outcome.steps == line.steps,
                fields::ERROR => outcome.error == line.error,
                fields::TRAJECTORY_SOURCE => outcome.trajectory_source == line.trajectory_source,
                fields::UNCAPTURED_ARGS => outcome.uncaptured_args == line.uncaptured_args,
                fields::EVIDENCE => !evidence.accounts().is_empty() && run.evidence == evidence,
                fields::CHECKS => {
                    !runner_checks.is_empty()
                        && run.runner_checks.iter().collect::<Vec<_>>() == runner_checks
                }
                other => panic!("say here how `{other}` reads back"),
            };
            assert!(read_back, "`{name}` does not read back from {text}");
        }
    }
}
