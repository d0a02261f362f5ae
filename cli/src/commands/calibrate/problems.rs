//! Bad input found while reading labels, verdicts or a calibration set: each is printed at
//! once with its file and line, the rest is still calibrated, and the command exits 2.

use crate::exit::Failure;

/// How many problems are printed one by one before they are only counted.
const SHOWN: usize = 50;

#[derive(Debug, Default)]
pub struct InputProblems {
    count: usize,
}

impl InputProblems {
    pub fn report(&mut self, message: String) {
        self.count += 1;
        if self.count <= SHOWN {
            eprintln!("proctor: {message}");
        }
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
