//! `proctor init [DIR]`: a starter suite that runs as it is, offline: a commented task file
//! using every kind of check, a small agent that follows the protocol, and the judge's
//! recorded answer for its rubric task.

use crate::args::InitArgs;
use anyhow::Context;
use std::path::Path;

/// The judge's recorded answer for the rubric task; its name is the request's key.
const CASSETTE: &str =
    "cassette/03c3ddf6ca006d62d9bb43f43f6da0692b998884daff2dda4ce1551505615e2f.json";

/// Every file of the starter suite, by its path inside DIR.
const FILES: [(&str, &str); 7] = [
    ("tasks.yaml", include_str!("../init/starter/tasks.yaml")),
    ("agent.py", include_str!("../init/starter/agent.py")),
    (
        "seeds/inbox.txt",
        include_str!("../init/starter/seeds/inbox.txt"),
    ),
    (
        "expected/summary.md",
        include_str!("../init/starter/expected/summary.md"),
    ),
    (
        "report.schema.json",
        include_str!("../init/starter/report.schema.json"),
    ),
    (
        CASSETTE,
        include_str!(
            "../init/starter/cassette/03c3ddf6ca006d62d9bb43f43f6da0692b998884daff2dda4ce1551505615e2f.json"
        ),
    ),
    ("README.md", include_str!("../init/starter/README.md")),
];

/// The command that runs the starter suite, from inside DIR.
pub const RUN_COMMAND: &str = "proctor run --tasks tasks.yaml --agent \"python3 agent.py\" --judge-model claude-sonnet-4-6 --cassette cassette";

pub fn run(args: InitArgs) -> anyhow::Result<()> {
    let existing: Vec<String> = FILES
        .iter()
        .map(|(path, _)| args.dir.join(path))
        .filter(|path| path.symlink_metadata().is_ok())
        .map(|path| path.display().to_string())
        .collect();
    if !existing.is_empty() {
        crate::exit::bail_input!(
            "{} already holds {}; choose another folder (proctor init DIR), nothing was written",
            args.dir.display(),
            existing.join(", ")
        );
    }
    for (path, text) in FILES {
        write(&args.dir.join(path), text)?;
    }
    let inside = if args.dir == Path::new(".") {
        String::new()
    } else {
        format!(
            "  cd {}\n",
            shell_words::quote(&args.dir.display().to_string())
        )
    };
    crate::exit::print(&format!(
        "proctor: wrote a starter suite to {}: tasks.yaml (five tasks, every kind of check), agent.py, and the judge's recorded answer in cassette/.\nRun it (offline):\n{inside}  {RUN_COMMAND}\n",
        args.dir.display()
    ))
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("{}: cannot make the folder", parent.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("{}: cannot write", path.display()))
}
