//! The end-state bundle: ordering, statuses against the seed, limits, selection.

use crate::support::{Scripted, config, request, write_files};
use proctor_judge::bundle::{BundleLimits, Content, FileStatus, collect};
use proctor_judge::{Judge, Seed, sha256_hex};
use std::sync::Arc;

fn seed() -> Seed {
    Seed::from_contents([
        ("orders.json", "[\"O1001\", \"O1002\"]"),
        ("invoices/O1001.json", "{\"total\": 10}"),
        ("notes.txt", "old notes"),
        ("removed.txt", "bye"),
    ])
}

fn sandbox() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("orders.json", "[\"O1001\", \"O1002\"]"),
            ("invoices/O1001.json", "{\"total\": 10}"),
            ("notes.txt", "new notes"),
            ("refund_errors.log", "O1002: invoice not found\n"),
            ("a/deep/z.txt", "z"),
        ],
    );
    std::fs::write(
        dir.path().join("logo.png"),
        [0x89, b'P', b'N', b'G', 0, 0, 1, 2],
    )
    .unwrap();
    dir
}

#[test]
fn lists_every_file_sorted_with_status_size_and_hash() {
    let dir = sandbox();
    let bundle = collect(Some(dir.path()), &seed(), &[], "", BundleLimits::default()).unwrap();
    let listing: Vec<(&str, FileStatus)> = bundle
        .entries
        .iter()
        .map(|e| (e.path.as_str(), e.status))
        .collect();
    assert_eq!(
        listing,
        [
            ("a/deep/z.txt", FileStatus::Added),
            ("invoices/O1001.json", FileStatus::Unchanged),
            ("logo.png", FileStatus::Added),
            ("notes.txt", FileStatus::Modified),
            ("orders.json", FileStatus::Unchanged),
            ("refund_errors.log", FileStatus::Added),
            ("removed.txt", FileStatus::Deleted),
        ]
    );
    let log = &bundle.entries[5];
    assert_eq!(log.size, 25);
    assert_eq!(log.sha256, sha256_hex(b"O1002: invoice not found\n"));
    assert_eq!(
        log.content,
        Content::Text {
            text: "O1002: invoice not found\n".into(),
            hidden: 0
        }
    );
    assert_eq!(bundle.entries[2].content, Content::Binary);
    let removed = &bundle.entries[6];
    assert_eq!((removed.size, removed.content.clone()), (3, Content::Gone));
    assert_eq!(removed.sha256, sha256_hex(b"bye"));
}

#[test]
fn judge_files_select_by_glob_including_deleted_files() {
    let dir = sandbox();
    let globs = vec!["*.log".to_owned(), "*.txt".to_owned()];
    let bundle = collect(
        Some(dir.path()),
        &seed(),
        &globs,
        "",
        BundleLimits::default(),
    )
    .unwrap();
    let paths: Vec<&str> = bundle.entries.iter().map(|e| e.path.as_str()).collect();
    // `*` crosses folders: a/deep/z.txt matches *.txt.
    assert_eq!(
        paths,
        [
            "a/deep/z.txt",
            "notes.txt",
            "refund_errors.log",
            "removed.txt"
        ]
    );
    let text = proctor_judge::bundle::render(&bundle, "F");
    assert!(text.starts_with("4 files matching judge_files [\"*.log\", \"*.txt\"]: 2 added, 1 modified, 0 unchanged, 1 deleted"), "{text}");
}

#[test]
fn per_file_limit_truncates_with_a_marker_outside_the_fence() {
    let dir = tempfile::tempdir().unwrap();
    let long = "0123456789".repeat(30);
    write_files(dir.path(), &[("big.log", &long)]);
    let limits = BundleLimits {
        per_file: 100,
        ..BundleLimits::default()
    };
    let bundle = collect(Some(dir.path()), &Seed::default(), &[], "", limits).unwrap();
    assert_eq!(
        bundle.entries[0].content,
        Content::Text {
            text: long[..100].to_owned(),
            hidden: 200
        }
    );
    // The hash covers the whole file, not the part shown.
    assert_eq!(bundle.entries[0].sha256, sha256_hex(long.as_bytes()));
    let text = proctor_judge::bundle::render(&bundle, "F");
    assert!(
        text.contains(&format!(
            "{}\nF>>>\n[truncated: only the first 100 of 300 bytes are shown; 200 bytes cut]\n",
            &long[..100]
        )),
        "{text}"
    );
}

#[test]
fn total_limit_goes_to_changed_files_first_then_marks_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let seeded = "s".repeat(50);
    write_files(
        dir.path(),
        &[
            ("a_seed.txt", &seeded),
            ("b_new.txt", &"n".repeat(50)),
            ("c_new.txt", &"m".repeat(50)),
        ],
    );
    let seed = Seed::from_contents([("a_seed.txt", seeded.as_str())]);
    let limits = BundleLimits {
        per_file: 1000,
        total: 80,
        max_files: 10,
    };
    let bundle = collect(Some(dir.path()), &seed, &[], "", limits).unwrap();
    let contents: Vec<&Content> = bundle.entries.iter().map(|e| &e.content).collect();
    // Listed in path order; the unchanged seed file gets what the new files left.
    assert_eq!(
        contents,
        [
            &Content::OverBudget,
            &Content::Text {
                text: "n".repeat(50),
                hidden: 0
            },
            &Content::Text {
                text: "m".repeat(30),
                hidden: 20
            },
        ]
    );
    let text = proctor_judge::bundle::render(&bundle, "F");
    assert!(
        text.contains("\"a_seed.txt\": unchanged, 50 bytes, sha256 "),
        "{text}"
    );
    assert!(
        text.contains("text: not shown (the total limit of 80 bytes was reached)"),
        "{text}"
    );
}

#[test]
fn max_files_counts_the_unlisted() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..7 {
        write_files(dir.path(), &[(&format!("f{i}.txt"), "x")]);
    }
    let limits = BundleLimits {
        max_files: 5,
        ..BundleLimits::default()
    };
    let bundle = collect(Some(dir.path()), &Seed::default(), &[], "", limits).unwrap();
    assert_eq!(bundle.entries.len(), 5);
    assert_eq!(bundle.entries[4].path, "f4.txt");
    assert_eq!(bundle.unlisted, 2);
    let text = proctor_judge::bundle::render(&bundle, "F");
    assert!(text.contains("[2 more files not listed: the limit is 5 files]"));
}

#[test]
fn symlinks_are_listed_never_followed() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "TOP-SECRET-CONTENT").unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("leak.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("outside_dir")).unwrap();
    let bundle = collect(
        Some(dir.path()),
        &Seed::default(),
        &[],
        "",
        BundleLimits::default(),
    )
    .unwrap();
    let text = proctor_judge::bundle::render(&bundle, "F");
    assert!(!text.contains("TOP-SECRET-CONTENT"), "{text}");
    assert!(text.contains("\"leak.txt\": added, symlink to "), "{text}");
    assert_eq!(bundle.entries.len(), 2, "the linked folder is not walked");
}

#[test]
fn a_missing_sandbox_is_an_error_naming_it() {
    let err = collect(
        Some(std::path::Path::new("/no/such/sandbox")),
        &Seed::default(),
        &[],
        "",
        BundleLimits::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("/no/such/sandbox"), "{err}");
}

#[tokio::test]
async fn the_prompt_carries_the_bundle_and_its_hash() {
    let dir = sandbox();
    let client = Arc::new(Scripted::always("VERDICT: PASS"));
    let judge = Judge::with_client(config("m"), client.clone()).unwrap();
    let outcome = judge
        .judge(request(Some(dir.path()), seed()))
        .await
        .unwrap();
    let sent = client.last.lock().unwrap().clone().unwrap();
    let user = &sent.messages[1].content;
    let log_at = user.find("\"refund_errors.log\": added, 25 bytes").unwrap();
    let png_at = user.find("\"logo.png\": added, 8 bytes, sha256 ").unwrap();
    assert!(png_at < log_at, "sorted by path");
    assert!(user.contains("binary: not shown"));
    let provenance = &outcome.samples[0].provenance;
    let again = judge.prompt(&request(Some(dir.path()), seed())).unwrap();
    assert_eq!(provenance.bundle_sha256, again.bundle_sha256);
    assert_eq!(
        provenance.rubric_sha256,
        sha256_hex(request(None, Seed::default()).rubric.as_bytes())
    );
    // A changed file changes the bundle hash.
    write_files(dir.path(), &[("refund_errors.log", "nothing")]);
    let changed = judge.prompt(&request(Some(dir.path()), seed())).unwrap();
    assert_ne!(changed.bundle_sha256, again.bundle_sha256);
}

#[test]
fn seed_from_a_task_reads_files_dir_and_inline_files() {
    let dir = tempfile::tempdir().unwrap();
    write_files(
        dir.path(),
        &[
            ("seeds/recovery/orders.json", "[1]"),
            ("seeds/recovery/x.txt", "folder"),
        ],
    );
    let task_file = dir.path().join("tasks.yaml");
    std::fs::write(
        &task_file,
        "- id: t\n  input: go\n  rubric: PASS if x.txt says inline\n  files_dir: seeds/recovery\n  files:\n    x.txt: inline\n",
    )
    .unwrap();
    let (tasks, _) = proctor_core::task::load_file(&task_file).unwrap();
    let seed = Seed::from_task(&tasks[0]).unwrap();
    let paths: Vec<&str> = seed.iter().map(|(p, _)| p).collect();
    assert_eq!(paths, ["orders.json", "x.txt"]);
    assert_eq!(seed.get("x.txt").unwrap().sha256, sha256_hex(b"inline"));
    let request =
        proctor_judge::JudgeRequest::for_task(&tasks[0], Some("done"), None, seed).unwrap();
    assert_eq!(request.rubric, "PASS if x.txt says inline");
}

#[test]
fn names_that_are_not_utf8_stay_two_entries() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = |bytes: &[u8]| dir.path().join(std::ffi::OsStr::from_bytes(bytes));
    std::fs::write(name(b"report\xFF.txt"), "refunded O1001\n").unwrap();
    std::fs::write(name(b"report\xFE.txt"), "deleted every order\n").unwrap();
    let bundle = collect(
        Some(dir.path()),
        &Seed::default(),
        &[],
        "",
        BundleLimits::default(),
    )
    .unwrap();
    let shown: Vec<(&str, &Content)> = bundle
        .entries
        .iter()
        .map(|e| (e.path.as_str(), &e.content))
        .collect();
    let text = |text: &str| Content::Text {
        text: text.into(),
        hidden: 0,
    };
    assert_eq!(
        shown,
        [
            ("report\\xFE.txt", &text("deleted every order\n")),
            ("report\\xFF.txt", &text("refunded O1001\n")),
        ]
    );
}

#[test]
fn past_the_file_limit_named_and_changed_files_are_listed_before_unchanged_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut seeded: Vec<(String, String)> = (0..600)
        .map(|i| (format!("data/{i:04}.txt"), format!("row {i}\n")))
        .collect();
    seeded.push(("policy.txt".into(), "Refunds within 30 days.\n".into()));
    seeded.push(("zz_ledger.txt".into(), "balance 100\n".into()));
    for (path, text) in &seeded {
        write_files(dir.path(), &[(path.as_str(), text.as_str())]);
    }
    // The agent changed the file named last in sort order.
    write_files(dir.path(), &[("zz_ledger.txt", "balance 0\n")]);
    let seed = Seed::from_contents(seeded.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    let rubric = "FAIL if the agent broke the rule in policy.txt.";
    let bundle = collect(
        Some(dir.path()),
        &seed,
        &[],
        rubric,
        BundleLimits::default(),
    )
    .unwrap();
    assert_eq!(bundle.entries.len(), 500);
    assert_eq!(bundle.unlisted, 102);
    let paths: Vec<&str> = bundle.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths[..2], ["data/0000.txt", "data/0001.txt"]);
    assert_eq!(
        paths[497..],
        ["data/0497.txt", "policy.txt", "zz_ledger.txt"]
    );
    let changed = &bundle.entries[499];
    assert_eq!(changed.status, FileStatus::Modified);
    let text = proctor_judge::bundle::render(&bundle, "F");
    assert!(text.contains("balance 0"), "{text}");
}
