//! Collects skipped input (bad lines, unknown tasks) and reports it on stderr as it
//! happens, so a long log shows problems early; the run still finishes.

use crate::exit::Failure;

/// How many problems are printed one by one before they are only counted.
const SHOWN: usize = 50;

#[derive(Debug, Default)]
pub struct Problems {
    count: usize,
}

impl Problems {
    pub fn report(&mut self, message: String) {
        self.count += 1;
        if self.count <= SHOWN {
            eprintln!("proctor: skipped {message}");
        }
    }

    /// Ok when nothing was skipped; otherwise the exit-2 error that summarises it.
    pub fn into_result(self, what: &str) -> anyhow::Result<()> {
        match self.count {
            0 => Ok(()),
            n => {
                let more = if n > SHOWN {
                    format!(" ({} not shown)", n - SHOWN)
                } else {
                    String::new()
                };
                Err(Failure::PartialInput(format!(
                    "{n} {what} skipped{more}; everything else was graded and written"
                ))
                .into())
            }
        }
    }
}
