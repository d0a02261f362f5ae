//! `docs/screenshot.sh` makes the README's picture of the HTML report from the current page
//! with headless Chromium (docs/testing.md): it runs, and writes a PNG of the page as tall as
//! it asked, with the page drawn on it (a blank window compresses to a few KiB).

use crate::chromium::chromium_binary;
use crate::common::root;
use std::process::Command;

/// Runs a screenshot script of docs/ with the built proctor; the PNG's bytes and its width
/// and height. `None` (the test skipped) without a browser.
fn draw(script: &str) -> Option<(Vec<u8>, (u32, u32))> {
    let browser = chromium_binary()?;
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("picture.png");
    let out = Command::new(root().join("docs").join(script))
        .arg(&png)
        .env("PROCTOR", assert_cmd::cargo::cargo_bin("proctor"))
        .env("CHROMIUM", browser)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "{script}: not a PNG"
    );
    // The IHDR chunk: width and height, big-endian, after the signature and chunk header.
    let size = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    let dimensions = (size(16), size(20));
    Some((bytes, dimensions))
}

#[test]
fn the_screenshot_script_draws_the_current_page() {
    let Some((bytes, dimensions)) = draw("screenshot.sh") else {
        return;
    };
    assert_eq!(dimensions, (1280, 4900));
    assert!(bytes.len() > 100_000, "{} bytes: a blank page", bytes.len());
}

/// `docs/view-screenshot.sh` makes the picture of `proctor view` in docs/viewing.md: runs made
/// offline, the server started and stopped, the page drawn with its rows and charts.
#[test]
fn the_view_screenshot_script_draws_the_page_of_runs() {
    let Some((bytes, dimensions)) = draw("view-screenshot.sh") else {
        return;
    };
    assert_eq!(dimensions, (1280, 1000));
    // The rows and charts drawn (a page still loading compresses to a few KiB).
    assert!(bytes.len() > 60_000, "{} bytes: an empty page", bytes.len());
}
