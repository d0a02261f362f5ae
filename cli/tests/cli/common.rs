//! Helpers shared by the CLI tests.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The judge for the fixture rubrics, answered from the recorded cassettes (offline).
pub const JUDGE: [&str; 4] = [
    "--judge-model",
    "claude-sonnet-4-6",
    "--cassette",
    "fixtures/cassettes/run",
];

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// `proctor` run from the workspace root, so fixture paths in output are stable.
pub fn proctor() -> Command {
    let mut cmd = Command::cargo_bin("proctor").unwrap();
    cmd.current_dir(root());
    cmd
}

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// Writes a file into a test folder.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}
