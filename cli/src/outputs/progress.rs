//! Progress on stderr: a bar on a terminal, one plain line per attempt otherwise
//! (CI logs keep every line; a bar would be noise there).

use super::{Attempt, AttemptSink, Reads};
use crate::render::details::reasons_with_details;
use indicatif::{ProgressBar, ProgressStyle};
use proctor_core::result::ResultLine;
use std::io::IsTerminal;

#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
    passed: u64,
}

impl Progress {
    pub fn new(total: u64) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total);
            let style = ProgressStyle::with_template(
                "{bar:30} {pos}/{len} attempts  {msg}  {elapsed_precise} elapsed, ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_message("0 passed");
            bar
        });
        Progress {
            bar,
            total,
            done: 0,
            passed: 0,
        }
    }

    fn finished(&mut self, line: &ResultLine) {
        self.done += 1;
        if line.passed == Some(true) {
            self.passed += 1;
        }
        match &self.bar {
            Some(bar) => {
                bar.set_message(format!("{} passed", self.passed));
                bar.inc(1);
            }
            None => {
                let verdict = match line.passed {
                    Some(true) => "PASS".to_owned(),
                    Some(false) => format!("FAIL {}", reasons_with_details(line).join("; ")),
                    None => format!("UNGRADED {}", reasons_with_details(line).join("; ")),
                };
                let label = line
                    .label
                    .as_deref()
                    .map(|l| format!(" [{l}]"))
                    .unwrap_or_default();
                eprintln!(
                    "[{}/{}] {} #{}{label}: {verdict}",
                    self.done, self.total, line.task, line.attempt
                );
            }
        }
    }

    /// Where messages go while the progress is shown.
    pub fn notes(&self) -> Notes {
        Notes(self.bar.clone())
    }
}

impl AttemptSink for Progress {
    fn reads(&self) -> Reads {
        Reads::LINE
    }

    fn attempt(&mut self, attempt: &Attempt<'_>) -> anyhow::Result<()> {
        if let Some(line) = attempt.line {
            self.finished(line);
        }
        Ok(())
    }

    fn close(&mut self) -> anyhow::Result<()> {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        Ok(())
    }
}

/// Messages printed above the bar while it is shown, so that it does not garble them.
#[derive(Debug, Clone)]
pub struct Notes(Option<ProgressBar>);

impl Notes {
    pub fn note(&self, message: &str) {
        match &self.0 {
            Some(bar) => bar.println(message),
            None => eprintln!("{message}"),
        }
    }
}
