//! `scripts/test`, the README's test command, ends with one line that counts the tests that
//! skipped their check and says why, and exits with cargo's code (docs/testing.md). cargo is
//! stood in for by a script that runs this test binary, so the check takes a second.

use crate::common::{root, write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

/// A test that skips at once where no browser is found.
const BROWSER_TEST: &str = "review::agent_text_in_answers_files_and_reasoning_stays_text";

/// A stand-in for cargo at `dir/cargo` running `body` (a shell script).
fn fake_cargo(dir: &Path, body: &str) -> std::path::PathBuf {
    let cargo = write(dir, "cargo", &format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    cargo
}

/// A folder to use as `PATH`: the few programs the script needs, and no browser.
fn path_without_a_browser(dir: &Path) -> std::path::PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    for program in ["bash", "sh", "dirname", "mkdir", "rm", "sort", "awk"] {
        let found = std::env::split_paths(&std::env::var_os("PATH").unwrap())
            .map(|d| d.join(program))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{program} is not on PATH"));
        std::os::unix::fs::symlink(found, bin.join(program)).unwrap();
    }
    bin
}

/// Runs `scripts/test ARGS` with `cargo` standing in for cargo: (exit code, last line).
fn script(cargo: &Path, path: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(root().join("scripts/test"))
        .args(args)
        .env("CARGO", cargo)
        .env("PATH", path)
        .env("TEST_BINARY", std::env::current_exe().unwrap())
        .env_remove("PROCTOR_CHROMIUM")
        .env_remove("PROCTOR_REQUIRE_CHROMIUM")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let last = stdout.lines().last().unwrap_or_default().to_owned();
    (out.status.code().unwrap(), last)
}

#[test]
fn a_test_that_skipped_its_check_is_counted_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    // The arguments after `--` go to this test binary, as cargo gives them to every one.
    let cargo = fake_cargo(
        dir.path(),
        r#"while [ "$1" != -- ]; do shift; done; shift; exec "$TEST_BINARY" "$@""#,
    );
    let path = path_without_a_browser(dir.path());
    let (code, last) = script(&cargo, &path, &["--", "--exact", BROWSER_TEST]);
    assert_eq!(code, 0, "{last}");
    assert!(
        last.starts_with("1 test skipped its check: 1 no headless Chromium on PATH ("),
        "{last}"
    );
}

#[test]
fn a_run_without_skips_says_so_and_keeps_cargos_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let cargo = fake_cargo(dir.path(), "echo 'test result: FAILED'; exit 101");
    let path = path_without_a_browser(dir.path());
    let (code, last) = script(&cargo, &path, &[]);
    assert_eq!(code, 101);
    assert_eq!(last, "every test checked what it tests");
}
