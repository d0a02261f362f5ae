//! A rubric task without a judge follows one rule, written once in docs/judge.md and only
//! linked from the README: `run` refuses before any agent starts, `grade` grades the recorded
//! outcomes with the rubric tasks' runs ungraded, for the reason the rule quotes.

use crate::common::{grade_log, proctor, results, root, run, write};
use serde_json::Value;

const SECTION: &str = "## A rubric task without a judge";
const ANCHOR: &str = "docs/judge.md#a-rubric-task-without-a-judge";

/// The section of docs/judge.md that states the rule.
fn rule() -> String {
    let judge = std::fs::read_to_string(root().join("docs/judge.md")).unwrap();
    let start = judge
        .find(SECTION)
        .unwrap_or_else(|| panic!("docs/judge.md has no {SECTION:?}"));
    let rest = &judge[start + SECTION.len()..];
    rest[..rest.find("\n## ").unwrap_or(rest.len())].to_owned()
}

#[test]
fn the_readme_links_the_rule_instead_of_restating_it() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains(ANCHOR), "the README does not link {ANCHOR}");
    // What the rule says about each command is said there only.
    for restated in [
        "graded as `run --no-judge`",
        "no judge is ungraded",
        "is refused before any agent starts; with",
    ] {
        assert!(
            !readme.contains(restated),
            "the README restates the rule: {restated}"
        );
    }
    let judge = std::fs::read_to_string(root().join("docs/judge.md")).unwrap();
    assert_eq!(
        judge.matches("not judged (--no-judge)").count(),
        1,
        "{judge}"
    );
}

#[test]
fn run_refuses_and_grade_grades_the_rubric_runs_ungraded_as_the_rule_says() {
    let rule = rule();
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.yaml",
        "- id: poem\n  input: write a poem\n  rubric: PASS only if it rhymes.\n\
         - id: sum\n  input: 1+1\n  expected: \"2\"\n",
    );
    let marker = dir.path().join("started");
    let refused = run(proctor()
        .args(["run", "--tasks"])
        .arg(&tasks)
        .arg("--agent")
        .arg(format!("sh -c 'touch {}; echo 2'", marker.display())));
    assert!(rule.contains("exit 2"), "{rule}");
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("task `poem`"), "{}", refused.stderr);
    assert!(!marker.exists(), "an agent started");

    let log = write(
        dir.path(),
        "log.jsonl",
        "{\"task\": \"poem\", \"status\": \"final\", \"answer\": \"roses\"}\n\
         {\"task\": \"sum\", \"status\": \"final\", \"answer\": \"2\"}\n",
    );
    let out = dir.path().join("r.jsonl");
    let graded = run(grade_log(&tasks, &log).arg("--out").arg(&out));
    assert_eq!(graded.code, 0, "{}", graded.stderr);
    assert!(graded.stderr.contains("`poem`"), "{}", graded.stderr);
    let lines = results(&out);
    let poem = lines.iter().find(|l| l["task"] == "poem").unwrap();
    let reason = poem["reasons"][0].as_str().unwrap();
    assert!(
        rule.contains(&format!("`{reason}`")),
        "{reason} is not in the rule:\n{rule}"
    );
    assert_eq!(poem["passed"], Value::Null, "{poem}");
    let sum = lines.iter().find(|l| l["task"] == "sum").unwrap();
    assert_eq!(sum["passed"], true, "{sum}");
}
