//! The ledger file: rows of result lines, appends (locked, whole rows, no duplicates),
//! quoting and the formula guard, versions and bad rows.

use crate::common::{dec, test_prices, ts};
use proctor_core::result::CallRole;
use proctor_core::result::ResultLine;
use proctor_ledger::TokenCounts;
use proctor_ledger::book::{
    Col, LEDGER_COLUMNS, LedgerBatch, LedgerReader, LedgerRow, RowContext, append_rows,
    rows_of_result,
};
use proctor_ledger::pricing::price_attempt;
use serde_json::json;
use std::path::Path;

fn row(task: &str, attempt: u64, label: &str) -> LedgerRow {
    LedgerRow {
        recorded_at: "2026-11-23T09:01:00Z".into(),
        run_id: "r1".into(),
        suite: "refunds".into(),
        label: label.into(),
        task: task.into(),
        attempt,
        passed: Some(true),
        role: CallRole::Agent,
        provider: "anthropic".into(),
        model: "claude-haiku-4-5".into(),
        tokens: TokenCounts {
            input_tokens: 10,
            cache_write_5m_tokens: 3,
            cache_write_1h_tokens: 2,
            output_tokens: 5,
            reasoning_tokens: 1,
            ..Default::default()
        },
        cost_usd: Some(dec("0.0000425")),
        price_id: "anthropic/claude-haiku-4-5@2025-10-15".into(),
        service_tier: String::new(),
        calls: 2,
    }
}

fn read_all(path: &Path) -> Vec<LedgerRow> {
    let mut reader = LedgerReader::open(path).unwrap();
    let mut rows = Vec::new();
    while let Some(raw) = reader.next_row().unwrap() {
        rows.push(raw.to_row().unwrap());
    }
    rows
}

#[test]
fn rows_of_a_priced_result_line_and_of_one_without_usage() {
    let usage = vec![
        json!({"provider": "anthropic", "model": "claude-haiku-4-5", "input_tokens": 1000, "output_tokens": 100}),
        json!({"provider": "openai", "model": "gpt-5-mini", "prompt_tokens": 10, "completion_tokens": 1}),
    ];
    let mut line: ResultLine = serde_json::from_value(json!({
        "task": "t", "attempt": 2, "label": "v1", "passed": false, "usage": usage,
    }))
    .unwrap();
    line.cost = price_attempt(&test_prices(), &line.usage, &[], ts("2026-11-23T09:01:00Z"))
        .into_result()
        .unwrap();
    let ctx = RowContext {
        run_id: "r",
        suite: "s",
        fallback_time: ts("2030-01-01T00:00:00Z"),
    };
    let rows = rows_of_result(&line, &ctx);
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0].recorded_at, "2026-11-23T09:01:00Z",
        "the priced time, not the fallback"
    );
    assert_eq!(
        (rows[0].model.as_str(), rows[0].cost_usd),
        ("claude-haiku-4-5", Some(dec("0.0015")))
    );
    assert_eq!(
        (rows[1].passed, rows[1].attempt, rows[1].calls),
        (Some(false), 2, 1)
    );
    let bare: ResultLine = serde_json::from_value(json!({"task": "t", "passed": true})).unwrap();
    let rows = rows_of_result(&bare, &ctx);
    assert_eq!(rows.len(), 1, "an attempt without usage is still a run");
    assert_eq!(
        (rows[0].calls, rows[0].cost_usd, rows[0].model.as_str()),
        (0, None, "")
    );
    assert_eq!(rows[0].recorded_at, "2030-01-01T00:00:00Z");
}

#[test]
fn appends_create_the_header_keep_earlier_rows_and_skip_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/l.csv");
    let first = append_rows(&path, &[row("a", 0, "v1"), row("a", 1, "v1")]).unwrap();
    assert_eq!((first.added, first.duplicates), (2, 0));
    let before = std::fs::read_to_string(&path).unwrap();
    assert_eq!(before.lines().next().unwrap(), LEDGER_COLUMNS.join(","));
    let again = append_rows(
        &path,
        &[row("a", 1, "v1"), row("b", 0, "v1"), row("b", 0, "v1")],
    )
    .unwrap();
    assert_eq!((again.added, again.duplicates), (1, 2));
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(
        after.starts_with(&before),
        "earlier rows are never rewritten"
    );
    let rows = read_all(&path);
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0], row("a", 0, "v1"), "a row reads back as written");
}

#[test]
fn quoting_and_the_formula_guard_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.csv");
    let nasty = [
        "=HYPERLINK(\"http://x\",\"click\")",
        "+cmd|' /C calc'!A0",
        "-2+3",
        "@SUM(1)",
        "v1, \"the good one\"",
        "line\nbreak",
        "'quoted",
    ];
    let rows: Vec<LedgerRow> = nasty
        .iter()
        .enumerate()
        .map(|(i, l)| row("t", i as u64, l))
        .collect();
    append_rows(&path, &rows).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains(",\"'=HYPERLINK(\"\"http://x\"\",\"\"click\"\")\","),
        "{text}"
    );
    assert!(text.contains(",'+cmd|' /C calc'!A0,"));
    assert!(text.contains(",'-2+3,"));
    assert!(text.contains(",'@SUM(1),"));
    assert!(
        text.contains(",\"v1, \"\"the good one\"\"\","),
        "RFC 4180: quotes doubled inside quotes"
    );
    assert!(text.contains(",\"line\nbreak\","));
    assert!(text.contains(",''quoted,"));
    for line in text.lines().skip(1).filter(|l| l.starts_with("2026")) {
        for cell in line.split(',') {
            assert!(
                !cell.starts_with(['=', '+', '@']),
                "unguarded cell {cell:?}"
            );
        }
    }
    let labels: Vec<String> = read_all(&path).into_iter().map(|r| r.label).collect();
    assert_eq!(labels, nasty);
}

#[test]
fn two_concurrent_appenders_lose_no_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.csv");
    let writers: Vec<_> = ["v1", "v2"]
        .into_iter()
        .map(|label| {
            let path = path.clone();
            std::thread::spawn(move || {
                for batch in 0..25u64 {
                    let rows: Vec<LedgerRow> =
                        (0..40).map(|i| row("t", batch * 40 + i, label)).collect();
                    let report = append_rows(&path, &rows).unwrap();
                    assert_eq!(report.added, 40);
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let rows = read_all(&path);
    assert_eq!(rows.len(), 2_000);
    for label in ["v1", "v2"] {
        let mut attempts: Vec<u64> = rows
            .iter()
            .filter(|r| r.label == label)
            .map(|r| r.attempt)
            .collect();
        attempts.sort_unstable();
        assert_eq!(attempts, (0..1_000).collect::<Vec<_>>(), "{label}");
    }
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text.matches(&LEDGER_COLUMNS.join(",")).count(),
        1,
        "one header"
    );
}

#[test]
fn a_ledger_from_a_newer_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.csv");
    append_rows(&path, &[row("a", 0, "v1")]).unwrap();
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("proctor.ledger/1", "proctor.ledger/2");
    std::fs::write(&path, text).unwrap();
    let mut reader = LedgerReader::open(&path).unwrap();
    let err = reader.next_row().unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}:2:21: format: \"proctor.ledger/2\" is newer than this proctor reads (proctor.ledger/1); upgrade proctor",
            path.display()
        )
    );
    let append = append_rows(&path, &[row("b", 0, "v1")])
        .unwrap_err()
        .to_string();
    assert!(
        append.contains("is newer than this proctor reads"),
        "{append}"
    );
}

#[test]
fn bad_rows_name_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.csv");
    append_rows(&path, &[row("a", 0, "v1"), row("a", 1, "v1")]).unwrap();
    let good = std::fs::read_to_string(&path).unwrap();
    let cases = [
        (
            ",10,0,5,5,1,",
            ",-10,0,5,5,1,",
            "3:11: input_tokens: expected a non-negative integer, found \"-10\"",
        ),
        (
            ",10,0,5,5,1,",
            ",ten,0,5,5,1,",
            "3:11: input_tokens: expected a non-negative integer",
        ),
        (
            ",0.0000425,",
            ",free,",
            "3:16: cost_usd: expected a non-negative decimal",
        ),
        (
            ",true,agent,",
            ",yes,agent,",
            "3:7: passed: expected true, false or nothing",
        ),
        (
            ",true,agent,",
            ",true,robot,",
            "3:8: role: expected agent or judge",
        ),
    ];
    for (from, to, expected) in cases {
        // Damage the second row only.
        let at = good.rfind(from).unwrap();
        let text = format!("{}{to}{}", &good[..at], &good[at + from.len()..]);
        std::fs::write(&path, text).unwrap();
        let mut reader = LedgerReader::open(&path).unwrap();
        reader.next_row().unwrap().unwrap().to_row().unwrap();
        let err = reader
            .next_row()
            .unwrap()
            .unwrap()
            .to_row()
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&format!("{}:{expected}", path.display())),
            "{err}"
        );
    }
    std::fs::write(&path, format!("{good}1,2,3\n")).unwrap();
    let mut reader = LedgerReader::open(&path).unwrap();
    reader.next_row().unwrap();
    reader.next_row().unwrap();
    let err = reader.next_row().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:4:1: expected 21 fields", path.display())),
        "{err}"
    );
}

#[test]
fn a_hand_written_ledger_with_only_designs_columns_reads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.csv");
    std::fs::write(
        &path,
        format!(
            "{}\n2026-11-23T09:01:00Z,r,s,v1,t,0,true,agent,openai,gpt-5-mini,10,0,0,5,0,,\n",
            LEDGER_COLUMNS[..17].join(",")
        ),
    )
    .unwrap();
    let rows = read_all(&path);
    assert_eq!(rows[0].calls, 1, "a row naming a model is one call");
    assert_eq!(rows[0].cost_usd, None);
    let mut reader = LedgerReader::open(&path).unwrap();
    assert!(!reader.header_is_current());
    assert_eq!(reader.next_row().unwrap().unwrap().bytes(Col::Format), b"");
    let err = append_rows(&path, &[row("a", 0, "v1")])
        .unwrap_err()
        .to_string();
    assert!(err.contains("the header is not this proctor's"), "{err}");
}

#[test]
fn a_last_row_without_a_line_end_is_completed_before_appending() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.csv");
    append_rows(&path, &[row("a", 0, "v1")]).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.trim_end()).unwrap();
    append_rows(&path, &[row("a", 1, "v1")]).unwrap();
    assert_eq!(read_all(&path).len(), 2);
}

#[test]
fn a_batch_spills_to_disk_and_commits_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.csv");
    let mut batch = LedgerBatch::new().unwrap();
    for i in 0..5_000 {
        batch.push(&row("t", i, "v1")).unwrap();
    }
    assert_eq!(batch.len(), 5_000);
    let report = batch.commit(&path).unwrap();
    assert_eq!(report.added, 5_000);
}
