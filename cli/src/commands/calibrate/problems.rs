//! Bad input found while reading labels, verdicts or a calibration set: each is printed at
//! once with its file and line, the rest is still calibrated, and the command exits 2.

use crate::exit::Failure;

/// How many problems are printed one by one before they are only counted.
const SHOWN: usize = 50;

#[derive(Debug, Default)]
pub struct InputProblems {
    count: usize,
    /// Set by [`InputProblems::kept`]: the messages are kept here instead of printed.
    kept: Option<Vec<String>>,
}

impl InputProblems {
    /// Problems kept for the caller rather than printed, for `proctor review`, which
    /// calibrates again after every label and shows the problems in its page.
    pub fn kept() -> InputProblems {
        InputProblems {
            count: 0,
            kept: Some(Vec::new()),
        }
    }

    pub fn report(&mut self, message: String) {
        self.count += 1;
        match &mut self.kept {
            Some(kept) => kept.push(message),
            None if self.count <= SHOWN => eprintln!("proctor: {message}"),
            None => {}
        }
    }

    /// Something worth knowing that is not bad input; kept problems keep no notes.
    pub fn note(&mut self, message: String) {
        if self.kept.is_none() {
            eprintln!("proctor: note: {message}");
        }
    }

    /// The kept messages (none when they were printed).
    pub fn messages(&self) -> &[String] {
        self.kept.as_deref().unwrap_or_default()
    }

    /// Ok when the input was clean; otherwise the exit-2 error that summarises it.
    pub fn into_result(self) -> anyhow::Result<()> {
        match self.count {
            0 => Ok(()),
            n => {
                let hidden = if n > SHOWN {
                    format!(", {} not shown", n - SHOWN)
                } else {
                    String::new()
                };
                Err(Failure::PartialInput(format!(
                    "{n} input problem{} (see above{hidden}); the calibration covers the rest of the input",
                    if n == 1 { "" } else { "s" }
                ))
                .into())
            }
        }
    }
}
