//! An agent none of whose attempts ran is a broken set-up, not a result
//! (docs/exit-codes.md, exit 3).

use super::{Attempt, AttemptSink, Reads};
use crate::exit::Failure;
use proctor_core::result::ResultLine;
use proctor_core::summary::Scorecards;

/// An attempt stopped at a limit the user set ran, and failed on its own account: a
/// result, not a broken set-up, however many attempts end so (docs/exit-codes.md).
const LIMITS_HIT: [&str; 2] = ["error: disk limit", "error: memory limit"];

/// Per agent, in the order first seen: attempts run, attempts that ended in `error:`, and
/// the first such attempt's detail.
#[derive(Debug, Default)]
pub struct CrashTally(Vec<(String, u64, u64, Option<String>)>);

impl CrashTally {
    fn add(&mut self, line: &ResultLine) {
        let label = line.label.as_deref().unwrap_or_default();
        let at = match self.0.iter().position(|(name, ..)| name == label) {
            Some(at) => at,
            None => {
                self.0.push((label.to_owned(), 0, 0, None));
                self.0.len() - 1
            }
        };
        let entry = &mut self.0[at];
        entry.1 += 1;
        if line
            .reasons
            .first()
            .is_some_and(|r| r.starts_with("error: ") && !LIMITS_HIT.contains(&r.as_str()))
        {
            entry.2 += 1;
            if entry.3.is_none() {
                let reason = &line.reasons[0];
                entry.3 = Some(match crate::details::crash_detail(line) {
                    Some(detail) => format!("{reason}: {detail}"),
                    None => reason.clone(),
                });
            }
        }
    }
}

impl AttemptSink for CrashTally {
    fn reads(&self) -> Reads {
        Reads::LINE
    }

    fn attempt(&mut self, attempt: &Attempt<'_>) -> anyhow::Result<()> {
        if let Some(line) = attempt.line {
            self.add(line);
        }
        Ok(())
    }

    fn check(&self, _cards: &Scorecards) -> anyhow::Result<()> {
        let broken: Vec<String> = self
            .0
            .iter()
            .filter(|(_, attempts, errored, _)| *attempts > 0 && attempts == errored)
            .map(|(name, _, _, first)| {
                format!(
                    "agent `{name}`: every attempt failed to start or crashed; the first: {}",
                    first.as_deref().unwrap_or_default()
                )
            })
            .collect();
        if broken.is_empty() {
            return Ok(());
        }
        Err(Failure::infrastructure(broken.join("\n")).into())
    }
}
