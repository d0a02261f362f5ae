//! Published benchmarks run faithfully: the τ-bench-shaped retail suite and the
//! AgentDojo-shaped bank suite in `fixtures/`, run with every fixture agent on the MCP Python
//! SDK, give the numbers an independent reference grader
//! (`fixtures/benchmarks/reference_grader.py`) computes from the kept attempts: pass^k per
//! agent and task for retail; utility, utility under attack and attack success per agent and
//! injection task for the bank.

use crate::common::{proctor, results, root, run};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

const INJECTION_TASKS: [&str; 3] = ["leak_landlord_iban", "drain_account", "redirect_rent"];
/// Where `--by variant` puts the pooled row of every attack variant, beside `by_variant`.
const ALL_ATTACKS: &str = "all_attacks";

/// One suite run with its agents and graded twice: by proctor and by the reference grader.
struct Graded {
    /// `proctor report --format json --by variant`.
    proctor: Value,
    /// The reference grader's `agents`.
    reference: Value,
    keep: PathBuf,
    out: PathBuf,
    _dir: TempDir,
}

/// Runs suite `suite` (`fixtures/<suite>/tasks.yaml`) with the named agents, `--jobs 2`,
/// keeping every attempt, then reports and grades it both ways.
fn run_and_grade(python: &str, suite: &str, agents: &[(&str, String)], attempts: u32) -> Graded {
    let dir = tempfile::tempdir().unwrap();
    let (keep, out) = (dir.path().join("keep"), dir.path().join("results.jsonl"));
    let mut command = proctor();
    command
        .args(["run", "--tasks", &format!("fixtures/{suite}/tasks.yaml")])
        .args(["--jobs", "2", "--attempts", &attempts.to_string(), "--keep"])
        .arg(&keep)
        .arg("--out")
        .arg(&out);
    for (name, agent) in agents {
        command.arg("--agent").arg(format!("{name}={agent}"));
    }
    let ran = run(&mut command);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let reported = run(proctor()
        .arg("report")
        .arg(&out)
        .args(["--format", "json", "--by", "variant"]));
    assert_eq!(reported.code, 0, "{}", reported.stderr);
    let graded = std::process::Command::new(python)
        .current_dir(root())
        .args(["fixtures/benchmarks/reference_grader.py", suite, "--keep"])
        .arg(&keep)
        .arg("--results")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&graded.stderr);
    assert!(graded.status.success(), "{stderr}");
    Graded {
        proctor: serde_json::from_str(&reported.stdout).unwrap(),
        reference: serde_json::from_slice::<Value>(&graded.stdout).unwrap()["agents"].clone(),
        keep,
        out,
        _dir: dir,
    }
}

fn close(got: &Value, want: &Value, what: &str) {
    let (got, want) = (got.as_f64(), want.as_f64());
    assert!(
        matches!((got, want), (Some(g), Some(w)) if (g - w).abs() < 1e-9),
        "{what}: proctor {got:?}, reference {want:?}"
    );
}

/// An attack row of `--by variant` against the reference: its utility under attack (the
/// pass rate too, as the suite's safety checks do not gate) and its attack success.
fn attacked(row: &Value, want: &Value, what: &str) {
    let (utility, attacks) = (&want["utility"], &want["attack_success"]);
    assert_eq!(row["attempts"], utility["of"], "{what} attempts");
    assert_eq!(row["passed"], utility["count"], "{what} passed");
    assert_eq!(row["useful_attempts"], utility["count"], "{what} utility");
    close(&row["utility_under_attack"], &utility["rate"], what);
    close(&row["pass_rate"], &utility["rate"], what);
    assert_eq!(row["safety_violations"], attacks["count"], "{what} attacks");
    close(&row["safety_violation_rate"], &attacks["rate"], what);
}

/// The per-task line of `task` in an agent's scorecard.
fn task_line<'a>(scorecard: &'a Value, task: &str) -> &'a Value {
    scorecard["per_task"]
        .as_array()
        .unwrap()
        .iter()
        .find(|line| line["task"] == task)
        .unwrap_or_else(|| panic!("no per-task line for {task}"))
}

/// Every `db.json` kept in `keep`, read as text.
fn kept_databases(keep: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders = vec![keep.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.file_name().is_some_and(|name| name == "db.json") {
                found.push(std::fs::read_to_string(path).unwrap());
            }
        }
    }
    found
}

#[test]
fn the_retail_suite_gives_the_reference_graders_pass_hat_k() {
    let Some(python) = crate::tools::sdk_python() else {
        return;
    };
    let agent = |script: &str, flag: &str| format!("{python} fixtures/agents/{script} {flag}");
    let agents = [
        ("gold", agent("mcp/retail_agent.py", "")),
        ("separators", agent("mcp/retail_agent.py", "--separators")),
        ("sloppy", agent("mcp/retail_agent.py", "--sloppy")),
        ("state_editor", agent("adversarial/state_editor.py", "")),
    ];
    let graded = run_and_grade(&python, "retail", &agents, 3);
    let (proctor, reference) = (&graded.proctor, &graded.reference);
    for (label, _) in &agents {
        let (ours, theirs) = (&proctor["agents"][label], &reference[label]);
        assert_eq!(ours["k"], theirs["k"], "{label}");
        close(&ours["pass_hat_k"], &theirs["pass_hat_k"], label);
        assert_eq!(ours["passed"], theirs["pass_rate"]["count"], "{label}");
        assert_eq!(ours["attempts"], theirs["pass_rate"]["of"], "{label}");
        for (task, counts) in theirs["tasks"].as_object().unwrap() {
            let line = task_line(ours, task);
            let what = format!("{label} {task}");
            assert_eq!(line["attempts"], counts["n"], "{what}");
            assert_eq!(line["passed"], counts["c"], "{what}");
        }
    }
    // The numbers say what the agents are: gold always passes, sloppy sometimes, and the
    // agent that goes for the database never, as it cannot see it.
    for honest in ["gold", "separators"] {
        close(
            &proctor["agents"][honest]["pass_hat_k"],
            &Value::from(1.0),
            honest,
        );
    }
    let sloppy = proctor["agents"]["sloppy"]["pass_hat_k"].as_f64().unwrap();
    assert!(0.0 < sloppy && sloppy < 1.0, "sloppy pass^k {sloppy}");
    assert_eq!(proctor["agents"]["state_editor"]["passed"], 0);
    let databases = kept_databases(&graded.keep);
    assert_eq!(databases.len(), 4 * 9 * 3, "one kept db.json per attempt");
    assert!(databases.iter().all(|db| !db.contains("tampered")));
    // Skipping the login before a write is caught by the rule, not by the database.
    let lines = results(&graded.out);
    let skipped_login = lines
        .iter()
        .find(|r| r["label"] == "sloppy" && r["task"] == "change_order_address")
        .unwrap();
    let reasons = skipped_login["reasons"].to_string();
    assert!(
        reasons.contains("rule: ") && !reasons.contains("end state"),
        "{reasons}"
    );
    // "1,174.49" said to the user is τ-bench's "1174.49": the total was told, with its
    // thousands separator, in a message to the user as well as in the answer.
    let total = lines
        .iter()
        .find(|r| r["label"] == "separators" && r["task"] == "total_paid")
        .unwrap();
    assert!(
        total["answer"].as_str().unwrap().contains("$1,174.49"),
        "{total}"
    );
    assert_eq!(total["passed"], true, "{total}");
}

#[test]
fn the_bank_suite_gives_the_reference_graders_utility_and_attack_success() {
    let Some(python) = crate::tools::sdk_python() else {
        return;
    };
    let agent = |flag: &str| format!("{python} fixtures/agents/mcp/bank_agent.py {flag}");
    let agents = [
        ("gold", agent("")),
        ("gullible", agent("--gullible")),
        ("sloppy", agent("--sloppy")),
    ];
    let graded = run_and_grade(&python, "bank", &agents, 2);
    let (proctor, reference) = (&graded.proctor, &graded.reference);
    for (label, _) in &agents {
        let (ours, theirs) = (&proctor["agents"][label], &reference[label]);
        assert_eq!(ours["k"], theirs["k"], "{label}");
        let rows = &ours["by_variant"];
        for variant in ["-"].into_iter().chain(INJECTION_TASKS) {
            let (row, want) = (&rows[variant], &theirs["by_variant"][variant]);
            let what = format!("{label} [{variant}]");
            assert_eq!(row["passed"], want["utility"]["count"], "{what} utility");
            assert_eq!(row["attempts"], want["utility"]["of"], "{what} attempts");
            close(&row["pass_rate"], &want["utility"]["rate"], &what);
            close(&row["pass_hat_k"], &want["pass_hat_k"], &what);
            if variant != "-" {
                attacked(row, want, &what);
            }
        }
        // The pooled row of the three injection tasks.
        let pooled = json!({"utility": theirs["utility_under_attack"],
            "attack_success": theirs["attack_success"]});
        attacked(
            &ours[ALL_ATTACKS],
            &pooled,
            &format!("{label} [all attacks]"),
        );
    }
    // The numbers say what the agents are.
    let attack_success = |label: &str| reference[label]["attack_success"]["count"].as_u64();
    assert_eq!(attack_success("gold"), Some(0));
    assert_eq!(attack_success("sloppy"), Some(0));
    assert_eq!(attack_success("gullible"), Some(3 * 4 * 2));
    let utility = |label: &str| reference[label]["utility"]["count"].as_u64();
    assert_eq!((utility("gold"), utility("sloppy")), (Some(12), Some(8)));
}
