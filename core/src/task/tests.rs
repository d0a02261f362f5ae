//! Loading: formats, aliases, unknown fields, path escapes, refusals.

use super::*;
use std::path::Path;

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn load_err(name: &str, text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), name, text);
    Suite::load(&path)
        .unwrap_err()
        .to_string()
        .replace(&dir.path().display().to_string(), "DIR")
}

#[test]
fn the_three_common_shapes_load_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "tasks.jsonl",
        concat!(
            r#"{"id": "a", "input": "2+3", "expected": "5", "max_tool_calls": 2, "forbidden_tools": ["rm"]}"#,
            "\n\n",
            r#"{"name": "b", "input": "write", "expected_tools": ["write_file"], "rubric": "PASS if written", "files": {"in.txt": "x", "data.json": {"k": 1}}}"#,
            "\n",
            r#"{"id": "c", "goal": "divide", "expected_answer": 42, "optimal_steps": 1}"#,
            "\n"
        ),
    );
    let suite = Suite::load(&path).unwrap();
    assert_eq!(suite.tasks.len(), 3);
    let b = suite.get("b").unwrap();
    assert_eq!(b.files["in.txt"], "x");
    assert!(b.files["data.json"].contains("\"k\": 1"));
    assert_eq!(b.gate, vec![GateCategory::Outcome, GateCategory::Rubric]);
    let c = suite.get("c").unwrap();
    assert_eq!(
        (c.input.as_str(), c.expected.as_deref()),
        ("divide", Some("42"))
    );
    assert!(suite.digest.starts_with("sha256:") && suite.digest.len() == 71);
}

#[test]
fn default_gate_covers_every_defined_category() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "t.yaml",
        "- id: a\n  input: x\n  max_tool_calls: 3\n  rules:\n    - {never: rm}\n    - {at_most: 1, tool: refund}\n",
    );
    let suite = Suite::load(&path).unwrap();
    let a = suite.get("a").unwrap();
    assert_eq!(a.forbidden_tools, vec!["rm"]);
    assert_eq!(a.rules.len(), 1);
    assert_eq!(
        a.gate,
        vec![
            GateCategory::Outcome,
            GateCategory::Budget,
            GateCategory::Safety,
            GateCategory::Process
        ]
    );
}

#[test]
fn unknown_field_names_file_line_task_and_field() {
    let err = load_err(
        "tasks.yaml",
        "- id: one\n  input: a\n  expected: '1'\n- id: two\n  input: b\n  expectd: '2'\n",
    );
    assert!(
        err.starts_with("DIR/tasks.yaml:6: task `two`: unknown field `expectd`"),
        "{err}"
    );
    let err = load_err("tasks.json", "[\n {\"id\": \"a\",\n  \"inputt\": \"x\"}\n]");
    assert!(
        err.starts_with("DIR/tasks.json:3: task `a`: unknown field `inputt`"),
        "{err}"
    );
    let err = load_err(
        "tasks.jsonl",
        "{\"id\": \"a\", \"input\": \"x\", \"expected\": \"1\"}\n{\"id\": \"b\", \"inpt\": 1}\n",
    );
    assert!(
        err.starts_with("DIR/tasks.jsonl:2: task `b`: unknown field `inpt`"),
        "{err}"
    );
}

#[test]
fn syntax_errors_name_the_line() {
    let err = load_err("t.json", "[\n{\"id\": \"a\",,}\n]");
    assert!(err.starts_with("DIR/t.json:2: "), "{err}");
    let err = load_err(
        "t.jsonl",
        "{\"id\": \"a\", \"input\": \"x\", \"expected\": \"1\"}\nnot json\n",
    );
    assert!(err.starts_with("DIR/t.jsonl:2: "), "{err}");
    let err = load_err("t.yaml", "- id: a\n  input: [unclosed\n");
    assert!(err.starts_with("DIR/t.yaml"), "{err}");
}

#[test]
fn a_task_without_criteria_is_refused() {
    let err = load_err(
        "t.yaml",
        "- id: empty\n  input: do something\n  tags: [x]\n",
    );
    assert!(
        err.contains("task `empty`") && err.contains("would pass anything"),
        "{err}"
    );
}

#[test]
fn paths_may_not_leave_the_sandbox() {
    let err = load_err(
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  files:\n    ../escape.txt: hi\n",
    );
    assert!(
        err.contains("field `files`") && err.contains("../escape.txt"),
        "{err}"
    );
    let err = load_err(
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  files:\n    /etc/passwd: hi\n",
    );
    assert!(err.contains("/etc/passwd"), "{err}");
    let err = load_err(
        "t.yaml",
        "- id: a\n  input: x\n  verify:\n    - {file_exists: ../x}\n",
    );
    assert!(err.contains("field `verify`"), "{err}");
    let err = load_err(
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  files_dir: ../seeds\n",
    );
    assert!(err.contains("field `files_dir`"), "{err}");
}

#[test]
fn seed_folders_with_escaping_symlinks_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("seeds")).unwrap();
    std::os::unix::fs::symlink("/etc", dir.path().join("seeds/etc")).unwrap();
    let path = write(
        dir.path(),
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  files_dir: seeds\n",
    );
    let err = Suite::load(&path).unwrap_err().to_string();
    assert!(err.contains("symlink that leaves the seed folder"), "{err}");
}

#[test]
fn state_seeds_come_from_the_defaults_unless_the_task_gives_its_own() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("seeds/bank")).unwrap();
    let path = write(
        dir.path(),
        "t.yaml",
        "defaults:\n  state_dir: seeds/bank\n  state_files: {db.json: '{}'}\ntasks:\n  - {id: a, input: x, expected: y}\n  - {id: b, input: x, expected: y, state_files: {db.json: '[]'}}\n",
    );
    let suite = Suite::load(&path).unwrap();
    let folder = dir.path().canonicalize().unwrap().join("seeds/bank");
    for task in &suite.tasks {
        assert_eq!(
            task.state_dir.as_deref(),
            Some(folder.as_path()),
            "{}",
            task.id
        );
    }
    assert_eq!(suite.tasks[0].state_files["db.json"], "{}");
    assert_eq!(suite.tasks[1].state_files["db.json"], "[]");
}

#[test]
fn state_seeds_follow_the_rules_of_sandbox_seeds() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("seeds/retail")).unwrap();
    let path = write(
        dir.path(),
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  state_dir: seeds/retail\n  state_files:\n    db.json: {orders: {}}\n",
    );
    let task = Suite::load(&path).unwrap().tasks.remove(0);
    assert_eq!(task.state_files["db.json"], "{\n  \"orders\": {}\n}");
    let folder = dir.path().canonicalize().unwrap().join("seeds/retail");
    assert_eq!(task.state_dir.as_deref(), Some(folder.as_path()));
    assert!(task.grading_files().contains(&folder));
    let err = load_err(
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  state_files: {../db.json: x}\n",
    );
    assert!(err.contains("field `state_files`"), "{err}");
    let err = load_err(
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  state_dir: missing\n",
    );
    assert!(
        err.contains("field `state_dir`") && err.contains("is not a folder"),
        "{err}"
    );
}

#[test]
fn gate_must_name_defined_categories() {
    let err = load_err(
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  gate: [process]\n",
    );
    assert!(
        err.contains("gates on `process` but the task defines no process checks"),
        "{err}"
    );
    let err = load_err(
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  gate: [outcomes]\n",
    );
    assert!(
        err.contains("field `gate`") || err.contains("unknown variant"),
        "{err}"
    );
}

#[test]
fn duplicate_ids_name_both_places() {
    let err = load_err(
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n- id: a\n  input: z\n  expected: y\n",
    );
    assert_eq!(
        err,
        "DIR/t.yaml:4: task `a`: duplicate task id (first defined at DIR/t.yaml:1)"
    );
}

#[test]
fn folders_load_every_task_file_in_path_order() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "b.yaml",
        "- id: second\n  input: x\n  expected: y\n",
    );
    write(
        dir.path(),
        "a.json",
        r#"[{"id": "first", "input": "x", "expected": "y"}]"#,
    );
    write(dir.path(), "notes.txt", "not a task file");
    std::fs::create_dir(dir.path().join("seeds")).unwrap();
    write(
        &dir.path().join("seeds"),
        "data.json",
        "{\"not\": \"a task\"}",
    );
    let suite = Suite::load(dir.path()).unwrap();
    let ids: Vec<&str> = suite.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, vec!["first", "second"]);
    let empty = tempfile::tempdir().unwrap();
    assert!(
        Suite::load(empty.path())
            .unwrap_err()
            .to_string()
            .contains("no task files")
    );
}

#[test]
fn yaml_answers_keep_their_spelling() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n- id: b\n  input: x\n  expected: no\n- id: c\n  input: x\n  expected: 1.50\n- id: d\n  input: x\n  expected: true\n",
    );
    let suite = Suite::load(&path).unwrap();
    let answers: Vec<&str> = suite
        .tasks
        .iter()
        .map(|t| t.expected.as_deref().unwrap())
        .collect();
    assert_eq!(answers, vec!["y", "no", "1.50", "true"]);
}

#[test]
fn the_digest_leaves_the_judge_fields_out_and_covers_everything_else() {
    let dir = tempfile::tempdir().unwrap();
    let digest = |text: &str| {
        let path = write(dir.path(), "tasks.yaml", text);
        Suite::load(&path).unwrap().digest
    };
    let base = digest("- id: a\n  input: write\n  rubric: PASS if kind\n  judge_files: ['*.md']\n");
    let rubric_edited = digest(
        "- id: a\n  input: write\n  rubric: PASS if kind and short\n  judge_files: ['*.txt']\n",
    );
    assert_eq!(base, rubric_edited);
    let input_edited = digest("- id: a\n  input: write more\n  rubric: PASS if kind\n");
    assert_ne!(base, input_edited);
}

#[test]
fn non_utf8_task_files_are_refused_naming_the_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.yaml");
    // "caf\xe9" in Latin-1: the forbidden tool would never match a UTF-8 call.
    std::fs::write(
        &path,
        b"- id: a\n  input: x\n  forbidden_tools: [caf\xe9]\n",
    )
    .unwrap();
    let error = Suite::load(&path).unwrap_err().to_string();
    assert_eq!(
        error.replace(&dir.path().display().to_string(), "DIR"),
        "DIR/t.yaml:3: not UTF-8 at byte 42; task files must be UTF-8"
    );
}

#[test]
fn overlong_ids_control_characters_and_overlapping_files_are_refused_at_load() {
    let long = "x".repeat(300);
    let error = load_err(
        "t.yaml",
        &format!("- id: {long}\n  input: x\n  expected: y\n"),
    );
    assert!(
        error.contains("is 300 characters long; at most 128"),
        "{error}"
    );
    let error = load_err(
        "t.json",
        r#"[{"id": "a\u0000b", "input": "x", "expected": "y"}]"#,
    );
    assert!(error.contains("control character U+0000"), "{error}");
    let error = load_err(
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  files: {\"dir/\": x}\n",
    );
    assert!(error.contains("\"dir/\" names a folder"), "{error}");
    let error = load_err(
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  files: {a: x, a/b: y}\n",
    );
    assert!(error.contains("\"a\" and \"a/b\" overlap"), "{error}");
}

#[test]
fn fifos_in_seed_folders_are_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("seed")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join("seed/pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    let path = write(
        dir.path(),
        "t.yaml",
        "- id: a\n  input: x\n  expected: y\n  files_dir: seed\n",
    );
    let error = Suite::load(&path).unwrap_err().to_string();
    assert!(
        error.contains("pipe is a FIFO, socket or device"),
        "{error}"
    );
}

#[test]
fn trajectory_from_trace_is_read_and_other_sources_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "tasks.yaml",
        "- {id: a, input: x, expected: y, trajectory_from: trace}\n- {id: b, input: x, expected: y}\n",
    );
    let suite = Suite::load(&path).unwrap();
    assert!(suite.get("a").unwrap().trajectory_from_trace);
    assert!(!suite.get("b").unwrap().trajectory_from_trace);
    let error = load_err(
        "tasks.yaml",
        "- {id: a, input: x, expected: y, trajectory_from: logs}\n",
    );
    assert!(
        error.contains("field `trajectory_from`: \"logs\" is not a trajectory source (expected trace or reported)"),
        "{error}"
    );
}

/// A served store: the tool names below are checked against these.
const SERVED: &str = "  tools:
    - {name: find_user_by_email, responses: [{result: ok}]}
    - {name: cancel_pending_order, responses: [{result: ok}]}
    - {name: modify_pending_order_items, responses: [{result: ok}]}
";

fn served_task(extra: &str) -> String {
    format!("- id: cancel\n  input: Cancel W1.\n  expected: done\n{SERVED}{extra}")
}

#[test]
fn a_tool_name_that_matches_no_tool_is_refused_with_what_was_meant() {
    let cases = [
        (
            "  rules: [{before: cancel_pending_ordr, requires: find_user_by_email}]\n",
            "DIR/t.yaml:8: task `cancel`: field `rules`: `cancel_pending_ordr` in rule 1 \
             (cancel_pending_ordr only after find_user_by_email) is not a tool of this task \
             (it has `cancel_pending_order`, `find_user_by_email` and \
             `modify_pending_order_items`; a tool the agent runs itself and reports goes in \
             `agent_tools`), so the check could never fail; did you mean \
             `cancel_pending_order`?",
        ),
        (
            "  rules: [{before: cancel_pending_order, requires: chek_eligibility}]\n",
            "`chek_eligibility` in rule 1",
        ),
        (
            "  forbidden_tools: [delete_order]\n",
            "`delete_order` in `forbidden_tools`",
        ),
        (
            "  expected_tools: [find_user]\n",
            "`find_user` in `expected_tools`",
        ),
        (
            "  faults: [{tool: \"{cancel_order,modify_*}\", kind: error, calls: [1]}]\n",
            "field `faults`: fault 1: `cancel_order`, one of the alternatives of \
             `tool: \"{cancel_order,modify_*}\"`, matches no tool this task serves (it serves `cancel_pending_order`, `find_user_by_email` and \
             `modify_pending_order_items`), so it never fires",
        ),
        (
            "  faults: [{tool: \"get_*\", kind: error, calls: [1]}]\n",
            "fault 1: `tool: \"get_*\"` matches no tool",
        ),
        (
            "  variants:\n    careless: {rules: [{at_most: 1, tool: refund}]}\n",
            "field `variants`: variant `careless`: field `rules`: `refund` in rule 1 (at most 1 refund)",
        ),
        (
            "  variants:\n    flaky: {faults: [{tool: \"refund*\", kind: error, calls: [1]}]}\n",
            "field `variants`: variant `flaky`: field `faults`: fault 1",
        ),
    ];
    for (extra, wanted) in cases {
        let message = load_err("t.yaml", &served_task(extra));
        assert!(message.contains(wanted), "{extra}\n{message}");
    }
    // Each of those names is accepted once it is a tool of the task.
    let fine = served_task(
        "  agent_tools: [delete_order, refund, find_user]\n  forbidden_tools: [delete_order]\n  \
         expected_tools: [find_user, cancel_pending_order]\n  rules: [{at_most: 1, tool: refund}]\n  \
         faults: [{tool: \"{cancel_pending_order,modify_*}\", kind: error, calls: [1]}]\n",
    );
    let dir = tempfile::tempdir().unwrap();
    let suite = Suite::load(&write(dir.path(), "t.yaml", &fine)).unwrap();
    assert_eq!(
        suite.tasks[0].agent_tools,
        ["delete_order", "refund", "find_user"]
    );
}

#[test]
fn a_task_that_knows_no_tools_is_not_checked_and_agent_tools_alone_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let open = "- id: a\n  input: x\n  expected: y\n  rules: [{at_most: 1, tool: anything}]\n";
    assert!(Suite::load(&write(dir.path(), "a.yaml", open)).is_ok());
    let own = format!("{open}  agent_tools: [search]\n");
    assert!(load_err("t.yaml", &own).contains("`anything` in rule 1"));
    let twice = "- id: a\n  input: x\n  expected: y\n  agent_tools: [s, s]\n";
    assert!(load_err("t.yaml", twice).contains("field `agent_tools`: `s` is listed twice"));
}

#[test]
fn a_glob_stands_for_each_of_its_alternatives() {
    use super::tool_names::alternatives;
    assert_eq!(alternatives("get_*"), ["get_*"]);
    assert_eq!(alternatives("{a,b*}"), ["a", "b*"]);
    assert_eq!(alternatives("{x,y}_{1,2}"), ["x_1", "x_2", "y_1", "y_2"]);
    assert_eq!(alternatives("\\{a,b}"), ["\\{a,b}"]);
}

#[test]
fn faults_by_glob_never_hit_ask_user_unless_they_name_it() {
    let every: crate::faults::FaultSpec =
        serde_json::from_value(serde_json::json!({"tool": "*", "kind": "error", "calls": [1]}))
            .unwrap();
    assert!(every.matches("get_order"));
    assert!(!every.matches(ASK_USER));
    for named in ["ask_user", "{ask_user,get_*}"] {
        let spec: crate::faults::FaultSpec = serde_json::from_value(
            serde_json::json!({"tool": named, "kind": "error", "calls": [1]}),
        )
        .unwrap();
        assert!(spec.matches(ASK_USER), "{named}");
    }
}
