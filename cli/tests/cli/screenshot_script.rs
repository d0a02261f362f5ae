//! `docs/screenshot.sh` makes the README's picture of the HTML report from the current page
//! with headless Chromium (docs/testing.md): it runs, and writes a PNG of the page as tall as
//! it asked, with the page drawn on it (a blank window compresses to a few KiB).

use crate::chromium::chromium_binary;
use crate::common::root;
use std::process::Command;

#[test]
fn the_screenshot_script_draws_the_current_page() {
    let Some(browser) = chromium_binary() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("report.png");
    let out = Command::new(root().join("docs/screenshot.sh"))
        .arg(&png)
        .env("PROCTOR", assert_cmd::cargo::cargo_bin("proctor"))
        .env("CHROMIUM", browser)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    // The IHDR chunk: width and height, big-endian, after the signature and chunk header.
    let size = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!((size(16), size(20)), (1280, 4900));
    assert!(bytes.len() > 100_000, "{} bytes: a blank page", bytes.len());
}

/// `docs/view-screenshot.sh` makes the picture of `proctor view` in docs/viewing.md: runs made
/// offline, the server started and stopped, the page drawn with its rows and charts.
#[test]
fn the_view_screenshot_script_draws_the_page_of_runs() {
    let Some(browser) = chromium_binary() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("view.png");
    let out = Command::new(root().join("docs/view-screenshot.sh"))
        .arg(&png)
        .env("PROCTOR", assert_cmd::cargo::cargo_bin("proctor"))
        .env("CHROMIUM", browser)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let size = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    assert_eq!((size(16), size(20)), (1280, 1000));
    // The rows and charts drawn (a page still loading compresses to a few KiB).
    assert!(bytes.len() > 60_000, "{} bytes: an empty page", bytes.len());
}
