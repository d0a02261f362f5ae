//! Summary renderers: one per format, behind one function, kept apart from the engine
//! so that on-disk formats and terminal output can change independently.

pub mod calibrate;
pub mod compare;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
mod numbers;
mod rows;
pub mod table;

use crate::args::Format;
use proctor_core::summary::Summary;
use std::io::Write;

/// Prints a summary on stdout in the chosen format.
pub fn print_summary(format: Format, title: &str, summary: &Summary) -> anyhow::Result<()> {
    let text = match format {
        Format::Table => table::render(title, summary),
        Format::Markdown => markdown::render(title, summary),
        Format::Json => json::render(summary),
        Format::Junit => anyhow::bail!(
            "--format junit lists every attempt: write results with --out and run `proctor report R.jsonl --format junit`"
        ),
        Format::Html => anyhow::bail!(
            "--format html is for `proctor report`; here, write the page with --html FILE"
        ),
    };
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth a non-zero exit.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    Ok(())
}
