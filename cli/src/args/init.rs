//! `proctor init`.

use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The folder to write the starter suite into (made if missing; no file is overwritten).
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
}
