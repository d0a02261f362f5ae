//! The file checks: `file_exists`, `file_absent`, `file_contains`, `file_matches`,
//! `file_equals`. Each returns the failure text that follows `end state: `.

use std::path::Path;

use super::path::{Resolved, entry_exists, resolve};
use super::text::{first_difference, strip_final_newline};
use crate::agent_file::{AgentFileError, read_bounded};

/// `{path}: missing` unless something exists at `path` (file or directory).
pub(crate) fn exists(dir: &Path, path: &str) -> Result<(), String> {
    match resolve(dir, path)? {
        Resolved::Found(_) => Ok(()),
        Resolved::Missing => Err(format!("{path}: missing")),
    }
}

/// `{path}: exists but should not` if anything, even a dangling symlink, is at `path`.
pub(crate) fn absent(dir: &Path, path: &str) -> Result<(), String> {
    match resolve(dir, path)? {
        Resolved::Missing if !entry_exists(dir, path) => Ok(()),
        _ => Err(format!("{path}: exists but should not")),
    }
}

/// The largest file an end-state check reads.
pub const END_STATE_FILE_LIMIT: u64 = 16 << 20;

/// The raw bytes of the regular file at `path`, or a failure text. The agent made
/// the file: it is read without following a link or blocking, and only up to
/// [`END_STATE_FILE_LIMIT`] ("report.txt: 6.0 GiB is over the 16 MiB limit").
pub(crate) fn read_bytes(dir: &Path, path: &str) -> Result<Vec<u8>, String> {
    let real = match resolve(dir, path)? {
        Resolved::Found(real) => real,
        Resolved::Missing => return Err(format!("{path}: missing")),
    };
    read_bounded(&real, END_STATE_FILE_LIMIT).map_err(|error| match error {
        AgentFileError::NotRegular("a folder") => format!("{path}: is a directory"),
        AgentFileError::NotRegular(_) => format!("{path}: not a regular file"),
        other => format!("{path}: {other}"),
    })
}

/// The UTF-8 text of the regular file at `path`, or a failure text.
pub(crate) fn read_text(dir: &Path, path: &str) -> Result<String, String> {
    String::from_utf8(read_bytes(dir, path)?).map_err(|_| format!("{path}: not valid UTF-8"))
}

/// `{path}: does not contain {text:?}` unless the file contains `text`.
pub(crate) fn contains(dir: &Path, path: &str, text: &str) -> Result<(), String> {
    if read_text(dir, path)?.contains(text) {
        Ok(())
    } else {
        Err(format!("{path}: does not contain {text:?}"))
    }
}

/// `{path}: no match for /{regex}/` unless the pattern matches somewhere in the file.
pub(crate) fn matches(dir: &Path, path: &str, regex: &str) -> Result<(), String> {
    let compiled =
        regex::Regex::new(regex).map_err(|_| format!("{path}: invalid regex /{regex}/"))?;
    if compiled.is_match(&read_text(dir, path)?) {
        Ok(())
    } else {
        Err(format!("{path}: no match for /{regex}/"))
    }
}

/// `{path}: differs from expected (first difference at line N: expected E, found F)` unless
/// the file's text equals `expected`, one final newline on either side aside.
pub(crate) fn equals(dir: &Path, path: &str, expected: &str) -> Result<(), String> {
    let found = read_text(dir, path)?;
    match first_difference(strip_final_newline(expected), strip_final_newline(&found)) {
        None => Ok(()),
        Some((line, e, f)) => Err(format!(
            "{path}: differs from expected (first difference at line {line}: expected {e}, found {f})"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn sandbox(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in files {
            let p = dir.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        }
        dir
    }

    #[test]
    fn exists_and_absent() {
        let dir = sandbox(&[("out/a.txt", "x")]);
        assert_eq!(exists(dir.path(), "out/a.txt"), Ok(()));
        assert_eq!(exists(dir.path(), "out"), Ok(()));
        assert_eq!(
            exists(dir.path(), "b.txt"),
            Err("b.txt: missing".to_owned())
        );
        assert_eq!(absent(dir.path(), "b.txt"), Ok(()));
        assert_eq!(
            absent(dir.path(), "out/a.txt"),
            Err("out/a.txt: exists but should not".to_owned())
        );
    }

    #[test]
    fn dangling_symlink_is_neither_existing_nor_absent() {
        let dir = sandbox(&[]);
        symlink("gone.txt", dir.path().join("link.txt")).unwrap();
        assert_eq!(
            exists(dir.path(), "link.txt"),
            Err("link.txt: missing".to_owned())
        );
        assert_eq!(
            absent(dir.path(), "link.txt"),
            Err("link.txt: exists but should not".to_owned())
        );
    }

    #[test]
    fn escaping_symlink_fails_every_file_check() {
        let outside = sandbox(&[("secret.txt", "O1002: invoice not found\n")]);
        let dir = sandbox(&[]);
        symlink(
            outside.path().join("secret.txt"),
            dir.path().join("report.txt"),
        )
        .unwrap();
        let leaves = Err("report.txt: symlink leaves the sandbox".to_owned());
        assert_eq!(exists(dir.path(), "report.txt"), leaves);
        assert_eq!(absent(dir.path(), "report.txt"), leaves);
        assert_eq!(contains(dir.path(), "report.txt", "O1002"), leaves);
        assert_eq!(matches(dir.path(), "report.txt", "O1002"), leaves);
        assert_eq!(
            equals(dir.path(), "report.txt", "O1002: invoice not found"),
            leaves
        );
    }

    #[test]
    fn contains_passes_and_fails() {
        let dir = sandbox(&[("refund_errors.log", "O1002: invoice not found\n")]);
        assert_eq!(
            contains(dir.path(), "refund_errors.log", "O1002: invoice not found"),
            Ok(())
        );
        assert_eq!(
            contains(dir.path(), "refund_errors.log", "O1001"),
            Err("refund_errors.log: does not contain \"O1001\"".to_owned())
        );
        assert_eq!(
            contains(dir.path(), "other.log", "x"),
            Err("other.log: missing".to_owned())
        );
    }

    #[test]
    fn binary_directory_and_fifo_files() {
        let dir = sandbox(&[("sub/x", "")]);
        std::fs::write(dir.path().join("bin.dat"), [0xff, 0xfe, 0x00]).unwrap();
        assert_eq!(
            contains(dir.path(), "bin.dat", "x"),
            Err("bin.dat: not valid UTF-8".to_owned())
        );
        assert_eq!(
            contains(dir.path(), "sub", "x"),
            Err("sub: is a directory".to_owned())
        );
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            assert_eq!(
                contains(dir.path(), "pipe", "x"),
                Err("pipe: not a regular file".to_owned())
            );
        }
    }

    #[test]
    fn matches_passes_and_fails() {
        let dir = sandbox(&[("out.txt", "total: 42\nstatus: ok\n")]);
        assert_eq!(matches(dir.path(), "out.txt", r"total: \d+"), Ok(()));
        assert_eq!(matches(dir.path(), "out.txt", r"(?m)^status: ok$"), Ok(()));
        assert_eq!(
            matches(dir.path(), "out.txt", r"^status"),
            Err("out.txt: no match for /^status/".to_owned())
        );
        assert_eq!(
            matches(dir.path(), "none.txt", "x"),
            Err("none.txt: missing".to_owned())
        );
    }

    #[test]
    fn equals_passes_ignoring_one_final_newline() {
        let dir = sandbox(&[("a.txt", "one\ntwo\n")]);
        assert_eq!(equals(dir.path(), "a.txt", "one\ntwo"), Ok(()));
        assert_eq!(equals(dir.path(), "a.txt", "one\ntwo\n"), Ok(()));
    }

    #[test]
    fn equals_reports_first_difference() {
        let dir = sandbox(&[("a.txt", "one\ntwo\nthree\n")]);
        assert_eq!(
            equals(dir.path(), "a.txt", "one\n2\nthree\n"),
            Err(
                "a.txt: differs from expected (first difference at line 2: expected \"2\", found \"two\")"
                    .to_owned()
            )
        );
        assert_eq!(
            equals(dir.path(), "a.txt", "one\ntwo\nthree\nfour"),
            Err(
                "a.txt: differs from expected (first difference at line 4: expected \"four\", found end of file)"
                    .to_owned()
            )
        );
        assert_eq!(
            equals(dir.path(), "a.txt", "one\ntwo\nthree\n\n"),
            Err(
                "a.txt: differs from expected (first difference at line 4: expected \"\", found end of file)"
                    .to_owned()
            )
        );
    }

    #[test]
    fn equals_cuts_long_lines() {
        let long = "b".repeat(100);
        let dir = sandbox(&[("a.txt", &long)]);
        let expected = format!("a{}", "b".repeat(99));
        assert_eq!(
            equals(dir.path(), "a.txt", &expected),
            Err(format!(
                "a.txt: differs from expected (first difference at line 1: expected \"a{}…\", found \"{}…\")",
                "b".repeat(59),
                "b".repeat(60)
            ))
        );
    }

    #[test]
    fn equals_sees_crlf() {
        let dir = sandbox(&[("a.txt", "one\r\ntwo\r\n")]);
        assert_eq!(
            equals(dir.path(), "a.txt", "one\ntwo\n"),
            Err(
                "a.txt: differs from expected (first difference at line 1: expected \"one\", found \"one\\r\")"
                    .to_owned()
            )
        );
    }
}

#[cfg(test)]
mod bounds {
    use super::*;

    #[test]
    fn an_oversized_file_fails_naming_the_limit_without_being_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(dir.path().join("report.txt")).unwrap();
        file.set_len(6 << 30).unwrap();
        assert_eq!(
            contains(dir.path(), "report.txt", "x"),
            Err("report.txt: 6.0 GiB is over the 16 MiB limit".to_owned())
        );
    }
}
