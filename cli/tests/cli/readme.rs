//! The README's example outputs are what the commands print (docs/testing.md): every fenced
//! block right after a `<!-- output checked -->` line holds `$ ` commands, each followed by
//! its standard output. The commands run in order, from a folder where `fixtures` is the
//! repository's, and their output must match; a line `...` stands for any number of lines.

use crate::common::root;
use std::path::Path;
use std::process::Command;

const MARKER: &str = "<!-- output checked -->";

/// One command of an example and the output shown under it.
struct Example {
    /// The README's line number of the command.
    line: usize,
    command: String,
    output: Vec<String>,
}

/// The commands and outputs of every block marked in `text`.
fn examples(text: &str) -> Vec<Example> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != MARKER {
            i += 1;
            continue;
        }
        assert!(
            lines.get(i + 1).is_some_and(|l| l.starts_with("```")),
            "README.md:{}: {MARKER} is not right before a fenced block",
            i + 1
        );
        i += 2;
        let mut current: Option<Example> = None;
        while i < lines.len() && !lines[i].starts_with("```") {
            let line = lines[i];
            if let Some(command) = line.strip_prefix("$ ") {
                found.extend(current.take());
                let start = i + 1;
                let mut command = command.to_owned();
                // A command goes on while its line ends in a backslash.
                while command.ends_with('\\') {
                    i += 1;
                    command.push('\n');
                    command.push_str(lines[i]);
                }
                current = Some(Example {
                    line: start,
                    command,
                    output: Vec::new(),
                });
            } else {
                let example = current.as_mut().unwrap_or_else(|| {
                    panic!("README.md:{}: output before any `$ ` command", i + 1)
                });
                example.output.push(line.trim_end().to_owned());
            }
            i += 1;
        }
        found.extend(current.take());
        i += 1;
    }
    found
}

/// Whether `actual` is `expected`, where a line `...` (indented or not) stands for any number
/// of lines (none included).
fn matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first.trim() == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(line, after)| line == first && matches(rest, after)),
    }
}

/// The folder the commands run in, with the repository's fixtures, and `proctor` on `PATH`.
fn workspace() -> (tempfile::TempDir, std::ffi::OsString) {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root().join("fixtures"), dir.path().join("fixtures")).unwrap();
    let binary = assert_cmd::cargo::cargo_bin("proctor");
    let mut path = vec![binary.parent().unwrap().to_owned()];
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    (dir, std::env::join_paths(path).unwrap())
}

fn run_in(dir: &Path, path: &std::ffi::OsStr, command: &str) -> (i32, Vec<String>, String) {
    let out = Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines = stdout.lines().map(|l| l.trim_end().to_owned()).collect();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), lines, stderr)
}

#[test]
fn the_readmes_example_outputs_are_what_the_commands_print() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 4, "{} examples found", examples.len());
    let (dir, path) = workspace();
    for example in &examples {
        let (code, actual, stderr) = run_in(dir.path(), &path, &example.command);
        assert_eq!(
            code, 0,
            "README.md:{}: {}\n{stderr}",
            example.line, example.command
        );
        assert!(
            matches(&example.output, &actual),
            "README.md:{}: `{}` prints\n{}\n\nbut the README shows\n{}",
            example.line,
            example.command,
            actual.join("\n"),
            example.output.join("\n")
        );
    }
}

#[test]
fn an_ellipsis_stands_for_lines_and_nothing_else() {
    let lines = |text: &str| -> Vec<String> { text.lines().map(str::to_owned).collect() };
    assert!(matches(&lines("a\n...\nd"), &lines("a\nb\nc\nd")));
    assert!(matches(&lines("a\n...\nb"), &lines("a\nb")));
    assert!(matches(&lines("...\nc"), &lines("a\nb\nc")));
    assert!(!matches(&lines("a\n...\nd"), &lines("a\nb\nc")));
    assert!(!matches(&lines("a\nc"), &lines("a\nb\nc")));
    assert!(!matches(&lines("a\nb"), &lines("a\nb\nc")));
}
