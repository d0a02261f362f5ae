//! `proctor calibrate`: both input modes (a calibration set judged through cassettes, and
//! recorded verdicts joined with labels), the docs/calibrating.md check values end to end, gates, bad
//! input, and the corrected pass rate in `report --calibration`.

use crate::common::{Output, proctor, root, run, write};
use serde_json::Value;
use std::path::Path;

const SET: &str = "fixtures/calibration/set.jsonl";
const CASSETTES: &str = "fixtures/calibration/cassettes";
const VERDICTS: &str = "fixtures/calibration/verdicts.jsonl";
const LABELS: &str = "fixtures/calibration/labels.csv";
const RATERS: &str = "fixtures/calibration/labels_raters.csv";
const RESULTS: &str = "fixtures/calibration/results.jsonl";

fn calibrate(args: &[&str]) -> Output {
    run(proctor().arg("calibrate").args(args))
}

fn set(extra: &[&str]) -> Output {
    let mut args = vec![
        "--set",
        SET,
        "--judge-provider",
        "openai",
        "--judge-model",
        "fixture-judge",
        "--cassette",
        CASSETTES,
    ];
    args.extend_from_slice(extra);
    calibrate(&args)
}

fn verdicts(labels: &str, extra: &[&str]) -> Output {
    let mut args = vec!["--verdicts", VERDICTS, "--labels", labels];
    args.extend_from_slice(extra);
    calibrate(&args)
}

fn json(out: &Output) -> Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

fn round4(v: &Value) -> f64 {
    (v.as_f64().unwrap() * 1e4).round() / 1e4
}

// ---- the two input modes ------------------------------------------------------------

#[test]
fn calibrate_set_table() {
    let out = set(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn calibrate_set_and_verdicts_agree() {
    // The verdicts file holds the same runs as the set, judged from the same cassettes.
    let from_set = json(&set(&["--format", "json"]));
    let from_verdicts = json(&verdicts(LABELS, &["--format", "json"]));
    for key in [
        "n",
        "confusion_matrix",
        "tpr",
        "tnr",
        "cohen_kappa",
        "gwet_ac1",
    ] {
        assert_eq!(from_set[key], from_verdicts[key], "{key}");
    }
    assert_eq!(from_set["confusion_matrix"]["fp"], 5);
    assert_eq!(from_set["judges"][0], "openai/fixture-judge (proctor-v1)");
}

#[test]
fn calibrate_verdicts_table_with_results_and_budget() {
    let out = verdicts(LABELS, &["--results", RESULTS, "--label-budget", "60"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("10 of the --results runs have no judge verdict"),
        "{}",
        out.stderr
    );
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn calibrate_verdicts_json() {
    let out = verdicts(
        LABELS,
        &[
            "--results",
            RESULTS,
            "--label-budget",
            "60",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let c = json(&out);
    assert_eq!(c["format"], "proctor.calibration/1");
    assert_eq!(c["correction"]["runs"], 200);
    assert_eq!(c["correction"]["judge_passed"], 120);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn calibrate_raters_markdown() {
    let out = verdicts(RATERS, &["--format", "markdown"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn several_raters_give_alpha_and_pairwise_agreement() {
    let c = json(&verdicts(RATERS, &["--format", "json"]));
    let raters = &c["raters"];
    assert_eq!(raters["raters"], 3);
    assert_eq!(raters["items"], 42);
    // policy_reply/11: ann PASS, bo FAIL, no cy: a tie, left out of the matrix.
    assert_eq!(c["human_ties"], 1);
    assert_eq!(c["n"], 41);
    let humans = raters["krippendorff_alpha_humans"].as_f64().unwrap();
    let with_judge = raters["krippendorff_alpha_with_judge"].as_f64().unwrap();
    assert!(humans > with_judge, "{raters}");
    assert!(raters["human_agreement"].as_f64() > raters["judge_human_agreement"].as_f64());
}

// ---- docs/calibrating.md check values, end to end --------------------------------------------

/// Writes result lines and labels with the given (human, judge) counts.
fn counts_fixture(dir: &Path, cells: &[(u64, &str, &str)]) {
    let (mut results, mut labels) = (String::new(), String::from("task,attempt,human\n"));
    let mut attempt = 0;
    for &(count, human, judge) in cells {
        for _ in 0..count {
            results.push_str(&format!(
                "{{\"task\": \"t\", \"attempt\": {attempt}, \"passed\": {}, \"judge\": {{\"verdict\": \"{judge}\", \"reasoning\": \"r{attempt}\"}}}}\n",
                judge == "PASS"
            ));
            labels.push_str(&format!("t,{attempt},{human}\n"));
            attempt += 1;
        }
    }
    write(dir, "verdicts.jsonl", &results);
    write(dir, "labels.csv", &labels);
}

fn in_dir(dir: &Path, args: &[&str]) -> Output {
    let mut cmd = assert_cmd::Command::cargo_bin("proctor").unwrap();
    cmd.current_dir(dir).arg("calibrate").args(args);
    run(&mut cmd)
}

#[test]
fn design_check_40_10_5_45() {
    let dir = tempfile::tempdir().unwrap();
    counts_fixture(
        dir.path(),
        &[
            (40, "PASS", "PASS"),
            (10, "PASS", "FAIL"),
            (5, "FAIL", "PASS"),
            (45, "FAIL", "FAIL"),
        ],
    );
    let out = in_dir(
        dir.path(),
        &[
            "--verdicts",
            "verdicts.jsonl",
            "--labels",
            "labels.csv",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let c = json(&out);
    assert_eq!(round4(&c["accuracy"]), 0.85);
    assert_eq!(round4(&c["tpr"]), 0.8);
    assert_eq!(round4(&c["tnr"]), 0.9);
    assert_eq!(round4(&c["cohen_kappa"]), 0.7);
    assert_eq!(round4(&c["gwet_ac1"]), 0.7007);
    assert_eq!(round4(&c["pabak"]), 0.7);
}

#[test]
fn design_check_85_5_8_2_and_tpr_tnr_first() {
    let dir = tempfile::tempdir().unwrap();
    counts_fixture(
        dir.path(),
        &[
            (85, "PASS", "PASS"),
            (5, "PASS", "FAIL"),
            (8, "FAIL", "PASS"),
            (2, "FAIL", "FAIL"),
        ],
    );
    let args = ["--verdicts", "verdicts.jsonl", "--labels", "labels.csv"];
    let c = json(&in_dir(
        dir.path(),
        &[&args[..], &["--format", "json"]].concat(),
    ));
    assert_eq!(round4(&c["cohen_kappa"]), 0.1667);
    assert_eq!(round4(&c["accuracy"]), 0.87);
    let table = in_dir(dir.path(), &args).stdout;
    let tnr = table.find("TNR  0.2000").expect("TNR shown");
    assert!(tnr < table.find("accuracy").unwrap(), "{table}");
}

#[test]
fn design_check_rogan_gladen_and_lee() {
    // TPR 90/100, TNR 80/100; 1000 judged runs, 600 passed by the judge.
    let dir = tempfile::tempdir().unwrap();
    counts_fixture(
        dir.path(),
        &[
            (90, "PASS", "PASS"),
            (10, "PASS", "FAIL"),
            (20, "FAIL", "PASS"),
            (80, "FAIL", "FAIL"),
        ],
    );
    let runs: String = (0..1000)
        .map(|i| {
            let verdict = if i < 600 { "PASS" } else { "FAIL" };
            format!("{{\"task\": \"u\", \"attempt\": {i}, \"passed\": {}, \"judge\": {{\"verdict\": \"{verdict}\"}}}}\n", i < 600)
        })
        .collect();
    write(dir.path(), "runs.jsonl", &runs);
    let out = in_dir(
        dir.path(),
        &[
            "--verdicts",
            "verdicts.jsonl",
            "--labels",
            "labels.csv",
            "--results",
            "runs.jsonl",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let k = &json(&out)["correction"];
    assert_eq!(round4(&k["raw_pass_rate"]), 0.6);
    assert_eq!(round4(&k["corrected_pass_rate"]), 0.5714);
    assert_eq!(round4(&k["corrected_pass_rate_ci"]["low"]), 0.4898);
    assert_eq!(round4(&k["corrected_pass_rate_ci"]["high"]), 0.6555);
}

// ---- gates ------------------------------------------------------------------------

#[test]
fn gates_exit_1_below_and_0_at_or_above() {
    let held = verdicts(
        LABELS,
        &[
            "--min-kappa",
            "0.6",
            "--min-tpr",
            "0.85",
            "--min-tnr",
            "0.75",
        ],
    );
    assert_eq!(held.code, 0, "{}", held.stderr);
    let failed = verdicts(
        LABELS,
        &["--min-kappa", "0.7", "--min-tnr", "0.8", "--format", "json"],
    );
    assert_eq!(failed.code, 1, "{}", failed.stderr);
    assert!(
        failed
            .stderr
            .contains("Cohen's κ 0.6199 is below --min-kappa 0.7"),
        "{}",
        failed.stderr
    );
    assert!(
        failed.stderr.contains("TNR 0.7727 is below --min-tnr 0.8"),
        "{}",
        failed.stderr
    );
    // The report is still printed: a failed gate is a result.
    assert_eq!(json(&failed)["n"], 42);
}

#[test]
fn out_writes_the_json_whatever_the_format() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("sub/cal.json");
    let out = verdicts(LABELS, &["--out", out_path.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("proctor calibrate"));
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&out_path).unwrap()).unwrap();
    assert_eq!(written, json(&verdicts(LABELS, &["--format", "json"])));
}

// ---- bad input --------------------------------------------------------------------

#[test]
fn bad_labels_are_named_by_file_and_line_and_the_rest_is_calibrated() {
    let dir = tempfile::tempdir().unwrap();
    let labels = write(
        dir.path(),
        "labels.csv",
        "task,attempt,human\n\
         recovery_log,0,pass\n\
         recovery_log,1,0\n\
         recovery_log,2,maybe\n\
         recovery_log,0,PASS\n\
         recovery_log,99,FAIL\n\
         nosuchtask,1,1\n\
         policy_reply,x,PASS\n",
    );
    let out = verdicts(labels.to_str().unwrap(), &["--format", "json"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let stderr = out.stderr.replace(dir.path().to_str().unwrap(), "DIR");
    insta::assert_snapshot!(stderr);
    // pass and 0 are read as PASS and FAIL; the two good labels are calibrated.
    let c = json(&out);
    assert_eq!(c["n"], 2);
    assert_eq!(c["confusion_matrix"]["tp"], 1);
    assert_eq!(c["confusion_matrix"]["tn"], 1);
}

#[test]
fn a_single_class_reports_what_it_can_and_why_kappa_is_undefined() {
    let dir = tempfile::tempdir().unwrap();
    let labels = write(
        dir.path(),
        "labels.csv",
        "task,attempt,human\nrecovery_log,0,PASS\nrecovery_log,3,PASS\nrecovery_log,10,PASS\n",
    );
    let path = labels.to_str().unwrap();
    let out = verdicts(path, &["--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let c = json(&out);
    assert_eq!(c["cohen_kappa"], Value::Null);
    assert_eq!(c["tnr"], Value::Null);
    assert_eq!(round4(&c["tpr"]), 0.6667);
    assert!(c["pabak"].is_number() && c["gwet_ac1"].is_number());
    let warning = c["warnings"][0].as_str().unwrap();
    assert!(
        warning.starts_with("all 3 human verdicts are PASS"),
        "{warning}"
    );
    assert!(warning.contains("κ would say nothing"), "{warning}");
    let table = verdicts(path, &[]).stdout;
    assert!(table.contains("Cohen's κ          -"), "{table}");
    assert!(
        table.contains("warning: all 3 human verdicts are PASS"),
        "{table}"
    );
    let gated = verdicts(path, &["--min-kappa", "0"]);
    assert_eq!(gated.code, 1);
    assert!(
        gated
            .stderr
            .contains("Cohen's κ is undefined for these labels"),
        "{}",
        gated.stderr
    );
}

#[test]
fn a_label_file_without_the_columns_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let labels = write(
        dir.path(),
        "labels.csv",
        "task,run,label\nrecovery_log,0,PASS\n",
    );
    let out = verdicts(labels.to_str().unwrap(), &[]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("labels.csv:1: the header needs the columns task, attempt and human"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_set_items_are_named_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let first = std::fs::read_to_string(root().join(SET))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_owned();
    let set_file = write(
        dir.path(),
        "set.jsonl",
        &format!(
            "{first}\n{first}\n{{\"id\": \"b\", \"rubric\": \"r\", \"input\": \"i\", \"human\": \"PASS\", \"fils\": {{}}}}\n{{\"id\": \"c\", \"rubric\": \"r\", \"input\": \"i\", \"human\": \"yes\"}}\n{{\"id\": \"d\", \"rubric\": \"r\", \"input\": \"i\", \"human\": 1, \"dir\": \"nowhere\"}}\n{{\"id\": \"e\", \"rubric\": \"r\", \"input\": \"i\", \"human\": 0, \"dir\": \".\", \"files\": {{}}}}\n"
        ),
    );
    let cassettes = root().join(CASSETTES);
    let out = calibrate(&[
        "--set",
        set_file.to_str().unwrap(),
        "--judge-provider",
        "openai",
        "--judge-model",
        "fixture-judge",
        "--cassette",
        cassettes.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("set.jsonl:2: duplicate id \"recovery_log/0\" (first on line 1)"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("set.jsonl:3: unknown field `fils`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("set.jsonl:4: `human`: \"yes\" is not a label"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("set.jsonl:5: item \"d\": `dir` ")
            && out.stderr.contains("nowhere is not a folder"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("set.jsonl:6: item \"e\" has both `files` and `dir`"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("5 input problems"), "{}", out.stderr);
    assert_eq!(json(&out)["n"], 1);
}

#[test]
fn a_cassette_miss_is_an_infrastructure_failure() {
    let dir = tempfile::tempdir().unwrap();
    let set_file = write(
        dir.path(),
        "set.jsonl",
        "{\"id\": \"new\", \"rubric\": \"PASS only if ok.\", \"input\": \"say ok\", \"answer\": \"ok\", \"human\": \"PASS\"}\n",
    );
    let cassettes = root().join(CASSETTES);
    let out = calibrate(&[
        "--set",
        set_file.to_str().unwrap(),
        "--judge-provider",
        "openai",
        "--judge-model",
        "fixture-judge",
        "--cassette",
        cassettes.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("set.jsonl:1 (item new): cassette miss"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_set_needs_a_judge_model() {
    let out = calibrate(&["--set", SET, "--cassette", CASSETTES]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("needs --judge-model"), "{}", out.stderr);
    let both = calibrate(&["--set", SET, "--verdicts", VERDICTS, "--labels", LABELS]);
    assert_eq!(both.code, 2);
}

// ---- report and compare with --calibration ------------------------------------------

fn calibration_file(dir: &Path) -> String {
    let path = dir.join("cal.json");
    let out = verdicts(
        LABELS,
        &["--out", path.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    path.to_str().unwrap().to_owned()
}

#[test]
fn report_shows_the_corrected_pass_rate_beside_the_raw_one() {
    let dir = tempfile::tempdir().unwrap();
    let cal = calibration_file(dir.path());
    let out = run(proctor().args(["report", RESULTS, "--calibration", &cal]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!(out.stdout.replace(&cal, "CAL.json"));
    let json_out =
        run(proctor().args(["report", RESULTS, "--calibration", &cal, "--format", "json"]));
    let r = json(&json_out);
    // 120 of 206 graded runs pass; all 200 judged runs are the judge's doing.
    assert_eq!(round4(&r["pass_rate"]), round4(&Value::from(120.0 / 206.0)));
    assert_eq!(r["calibration"]["judged_runs"], 200);
    let corrected = r["corrected_pass_rate"].as_f64().unwrap();
    let judge_corrected = r["calibration"]["corrected_judge_pass_rate"]
        .as_f64()
        .unwrap();
    assert!((corrected - 200.0 * judge_corrected / 206.0).abs() < 1e-12);
    assert!(r["corrected_pass_rate_ci"]["low"].as_f64() < Some(corrected));
}

#[test]
fn report_refuses_a_file_that_is_not_a_calibration() {
    let out = run(proctor().args(["report", RESULTS, "--calibration", RESULTS]));
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("fixtures/calibration/results.jsonl: not a proctor calibration"),
        "{}",
        out.stderr
    );
}

#[test]
fn compare_shows_both_sides_corrected() {
    let dir = tempfile::tempdir().unwrap();
    let cal = calibration_file(dir.path());
    let args = ["compare", VERDICTS, RESULTS, "--calibration", &cal];
    let out = run(proctor().args(args));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let tail = &out.stdout[out
        .stdout
        .find("corrected pass rate")
        .expect("the corrected rates")..];
    insta::assert_snapshot!(tail.replace(&cal, "CAL.json"));
    let c = json(&run(proctor().args(args).args(["--format", "json"])));
    // OLD is the calibration set itself: corrected, its pass rate is the humans' 20 of 42.
    assert_eq!(
        round4(&c["calibration"]["old"]["corrected_pass_rate"]),
        round4(&Value::from(20.0 / 42.0))
    );
    assert_eq!(c["calibration"]["new"]["judged_runs"], 200);
    assert!(c["verdict"].is_string(), "the comparison's own fields stay");
}

// ---- fixtures ---------------------------------------------------------------------

/// Regenerates fixtures/calibration/verdicts.jsonl: every item of the calibration set judged
/// through proctor-judge, replayed from the recorded cassettes, written as the result line of
/// the run it stands for (task and attempt from its id). Run after generate.py and record.py:
/// `cargo test -p proctor --test cli -- --ignored regenerate_calibration_verdicts`.
#[test]
#[ignore = "rewrites fixtures/calibration/verdicts.jsonl"]
fn regenerate_calibration_verdicts() {
    use proctor_judge::{CassetteMode, Judge, JudgeConfig, JudgeRequest, Provider, Seed};
    let mut config = JudgeConfig::new(Provider::OpenAi, "fixture-judge");
    config.cassette = Some(root().join(CASSETTES));
    config.mode = CassetteMode::Replay;
    let judge = Judge::new(config).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mut lines = String::new();
    for text in std::fs::read_to_string(root().join(SET)).unwrap().lines() {
        let item: Value = serde_json::from_str(text).unwrap();
        let sandbox = tempfile::tempdir().unwrap();
        for (path, contents) in item["files"].as_object().unwrap() {
            std::fs::write(sandbox.path().join(path), contents.as_str().unwrap()).unwrap();
        }
        let answer = item["answer"].as_str().map(str::to_owned);
        let request = JudgeRequest {
            rubric: item["rubric"].as_str().unwrap().to_owned(),
            input: item["input"].as_str().unwrap().to_owned(),
            answer: answer.clone(),
            judge_files: vec![],
            sandbox: Some(sandbox.path().to_owned()),
            seed: Seed::default(),
        };
        let outcome = runtime.block_on(judge.judge(request)).unwrap();
        let (task, attempt) = item["id"].as_str().unwrap().rsplit_once('/').unwrap();
        let passed = outcome.to_json()["verdict"] == "PASS";
        let line = serde_json::json!({
            "format": "proctor.result/1",
            "task": task,
            "attempt": attempt.parse::<u64>().unwrap(),
            "label": "v1",
            "passed": passed,
            "reasons": if passed { vec![] } else { vec!["rubric: FAIL"] },
            "status": "final",
            "answer": answer,
            "judge": outcome.to_json(),
        });
        lines.push_str(&serde_json::to_string(&line).unwrap());
        lines.push('\n');
    }
    std::fs::write(root().join(VERDICTS), lines).unwrap();
}

#[test]
fn results_lines_without_a_judge_field_count_only_with_a_rubric_fail_reason() {
    // docs/calibrating.md: a recorded PASS and FAIL count; a line without `judge` counts
    // as a FAIL when a reason says `rubric: FAIL`, and is left out (and noted) otherwise,
    // whether it passed or not.
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        r#"{"task": "a", "attempt": 0, "passed": true, "judge": {"verdict": "PASS"}}"#,
        r#"{"task": "a", "attempt": 1, "passed": false, "reasons": ["rubric: FAIL"], "judge": {"verdict": "FAIL"}}"#,
        r#"{"task": "a", "attempt": 2, "passed": false, "reasons": ["rubric: FAIL"]}"#,
        r#"{"task": "b", "attempt": 0, "passed": true}"#,
        r#"{"task": "b", "attempt": 1, "passed": false, "reasons": ["wrong answer"]}"#,
    ];
    let results = write(dir.path(), "results.jsonl", &(lines.join("\n") + "\n"));
    let results = results.to_str().unwrap();
    let out = verdicts(LABELS, &["--results", results, "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let correction = &json(&out)["correction"];
    assert_eq!(
        (&correction["runs"], &correction["judge_passed"]),
        (&Value::from(3), &Value::from(1)),
        "{correction}"
    );
    assert!(
        out.stderr
            .contains("2 of the --results runs have no judge verdict"),
        "{}",
        out.stderr
    );
}
