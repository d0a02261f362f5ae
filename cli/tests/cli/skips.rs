//! A test that cannot check what it tests (no browser, no Python environment, no
//! namespaces) says so through [`skip`]: on stderr, and as a line of the run's skip file,
//! which `scripts/test` counts and explains after `cargo test` (docs/testing.md).

use std::io::Write;

/// The variable `scripts/test` sets to the file it counts skips from.
pub const SKIP_FILE: &str = "PROCTOR_TEST_SKIPS";

/// Records that the running test skipped its check, and why (one line, the same for every
/// test skipped for the same reason, so that the count can group them).
pub fn skip(why: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    eprintln!("skipped: {test}: {why}");
    let Some(path) = std::env::var_os(SKIP_FILE) else {
        return;
    };
    let why = why.replace(['\n', '\t'], " ");
    // One short write in append mode: lines of tests running at once do not interleave.
    let line = format!("{test}\t{why}\n");
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| file.write_all(line.as_bytes()));
    if let Err(e) = written {
        panic!("cannot record the skip in {}: {e}", path.to_string_lossy());
    }
}
