//! Collects what a command could not take whole, and reports it on stderr as it happens,
//! so a long log shows problems early; the command still finishes.
//!
//! Two kinds, counted apart because they mean different things: input **skipped** (a bad
//! line, an unknown task: nothing of it was graded), and attempts written but not
//! **settled fully** (usage that could not be priced, counted unpriced; a rubric left
//! ungraded for want of its kept sandbox). Either ends the command with exit 2 once
//! everything else is done (docs/exit-codes.md).

use crate::exit::Failure;

/// How many problems are printed one by one before they are only counted.
const SHOWN: usize = 50;

#[derive(Debug, Default)]
pub struct Problems {
    skipped: usize,
    unsettled: usize,
}

impl Problems {
    /// Input skipped: `message` names it and says why.
    pub fn report(&mut self, message: String) {
        self.skipped += 1;
        if self.shown() {
            eprintln!("proctor: skipped {message}");
        }
    }

    /// An attempt graded and written whose `message` says what of it could not be
    /// settled; `say` prints it (through a progress bar, when one is drawn).
    pub fn report_settled(&mut self, message: String, say: impl FnOnce(&str)) {
        self.unsettled += 1;
        if self.shown() {
            say(&format!("proctor: {message}"));
        }
    }

    fn shown(&self) -> bool {
        self.skipped + self.unsettled <= SHOWN
    }

    /// Ok when nothing was skipped or left unsettled; otherwise the exit-2 error that
    /// summarises it, `what` naming the skipped input.
    pub fn into_result(self, what: &str) -> anyhow::Result<()> {
        let total = self.skipped + self.unsettled;
        if total == 0 {
            return Ok(());
        }
        let mut parts = Vec::new();
        if self.skipped > 0 {
            parts.push(format!("{} {what} skipped", self.skipped));
        }
        if self.unsettled > 0 {
            let attempts = match self.unsettled {
                1 => "attempt",
                _ => "attempts",
            };
            parts.push(format!(
                "{} {attempts} written with a problem said above (usage not priced is counted unpriced, never as 0)",
                self.unsettled
            ));
        }
        let more = match total.checked_sub(SHOWN) {
            Some(hidden @ 1..) => format!(" ({hidden} not shown)"),
            _ => String::new(),
        };
        Err(Failure::PartialInput(format!(
            "{}{more}; everything else was graded and written",
            parts.join("; ")
        ))
        .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(problems: Problems) -> String {
        problems
            .into_result("outcome lines")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn skipped_input_and_unpriced_usage_are_told_apart() {
        assert!(Problems::default().into_result("lines").is_ok());
        let mut both = Problems::default();
        both.report("log:2: invalid JSON".to_owned());
        both.report_settled("task `a` attempt 0: usage not priced".to_owned(), |_| {});
        assert_eq!(
            message(both),
            "1 outcome lines skipped; 1 attempt written with a problem said above (usage not priced is counted unpriced, never as 0); everything else was graded and written"
        );
        let mut unpriced = Problems::default();
        unpriced.report_settled("x".to_owned(), |_| {});
        assert!(!message(unpriced).contains("skipped"));
    }

    #[test]
    fn past_the_shown_problems_they_are_only_counted() {
        let mut many = Problems::default();
        let mut said = 0;
        for _ in 0..SHOWN + 3 {
            many.report_settled("x".to_owned(), |_| said += 1);
        }
        assert_eq!(said, SHOWN);
        assert!(message(many).contains("(3 not shown)"));
    }
}
