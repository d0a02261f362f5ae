//! `proctor view`.

use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Folders (searched at any depth) or results files to show (default: the current folder).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The port on 127.0.0.1 (default: a free one).
    #[arg(long, value_name = "P", default_value_t = 0, hide_default_value = true)]
    pub port: u16,
    /// A cost ledger: its cost per success joins the history charts.
    #[arg(long, value_name = "L.csv")]
    pub ledger: Option<PathBuf>,
    /// Where the summaries of results files are kept between views (default:
    /// `$XDG_CACHE_HOME/proctor/view`, else `~/.cache/proctor/view`); never inside a viewed folder.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
}
