//! Reading lines: both step shapes, each field's problems, depth, extra keys.

use super::*;
use crate::outcome::NotAnObject;
use crate::outcome::{AgentError, Status, Step};
use serde_json::{Value, json};

/// Reads a line the fast way, with no extra keys.
fn read(text: &str) -> Result<Outcome, OutcomeError> {
    OutcomeReader::<&str>::new(&[])
        .read_str(text)
        .expect("valid JSON")
        .expect("an object")
        .outcome
}

/// The same line parsed into a map first, the way `Outcome::from_json` is used.
fn from_map(text: &str) -> Result<Outcome, OutcomeError> {
    let value: Value = serde_json::from_str(text).unwrap();
    Outcome::from_json(value.as_object().unwrap())
}

#[test]
fn both_step_shapes_read_into_steps() {
    let o = read(
        r#"{"status": "done", "trajectory": [
            {"tool": "lookup", "args": {"order_id": "A1"}, "error": null, "result": {"ok": true}, "latency_ms": 3},
            ["refund", {"order_id": "A1"}],
            {"tool": "email", "error": "timeout"}]}"#,
    )
    .unwrap();
    assert_eq!(o.status, Some(Status::Final));
    assert_eq!(
        o.trajectory,
        vec![
            Step {
                tool: "lookup".into(),
                args: json!({"order_id": "A1"}).into(),
                error: None,
                result: Some(Box::new(json!({"ok": true}))),
                faults: None,
            },
            Step {
                tool: "refund".into(),
                args: json!({"order_id": "A1"}).into(),
                error: None,
                result: None,
                faults: None,
            },
            Step {
                tool: "email".into(),
                args: Default::default(),
                error: Some(Box::new(json!("timeout"))),
                result: None,
                faults: None,
            },
        ]
    );
    assert_eq!((o.tool_calls, o.steps), (3, 3));
    assert_eq!(o.used_tools(), ["lookup", "refund", "email"]);
}

#[test]
fn bad_steps_name_their_index() {
    for bad in [
        r#"[["a", 1], 42]"#,
        r#"[["a", 1], ["b"]]"#,
        r#"[["a", 1], ["b", 1, 2]]"#,
        r#"[["a", 1], [7, 1]]"#,
        r#"[["a", 1], {"args": 1}]"#,
        r#"[["a", 1], {"tool": 5}]"#,
        r#"[["a", 1], null, "also bad"]"#,
    ] {
        let text = format!(r#"{{"trajectory": {bad}, "after": [1, {{"x": 2}}]}}"#);
        let e = read(&text).unwrap_err();
        assert_eq!(e.field, "trajectory[1]", "{bad}");
        assert_eq!(Err(e), from_map(&text), "{bad}");
    }
}

#[test]
fn bad_status_is_reported_after_the_whole_line_is_checked() {
    let e = read(r#"{"status": "finished", "trajectory": [42]}"#).unwrap_err();
    assert_eq!(e.field, "status");
    assert_eq!(
        e.to_string(),
        "field `status`: unknown status \"finished\" (expected final, done, completed, \
         gave_up, hit_cap, timeout or error)"
    );
    let e = read(r#"{"status": 3}"#).unwrap_err();
    assert_eq!(
        e.to_string(),
        "field `status`: expected a string, found a number"
    );
    // Bad JSON later in the line wins over a bad field earlier in it.
    let bad_json = OutcomeReader::<&str>::new(&[]).read_str(r#"{"status": "finished", "x": }"#);
    assert!(bad_json.is_err());
}

#[test]
fn a_line_too_deep_for_serde_json_is_refused_wherever_the_depth_is() {
    // serde_json refuses a 128th level of nesting, counted from the line's own object.
    for (open, outer, close) in [
        (r#"{"trajectory":[["t","#, 3, "]]}"),
        (r#"{"trajectory":[{"tool":"t","args":"#, 3, "}]}"),
        (r#"{"usage":"#, 1, "}"),
        (r#"{"ts":"#, 1, "}"),
    ] {
        let inner = 128 - outer;
        let line = format!("{open}{}{}{close}", "[".repeat(inner), "]".repeat(inner));
        let error = OutcomeReader::<&str>::new(&[]).read_str(&line).unwrap_err();
        assert!(
            error.to_string().starts_with("recursion limit exceeded"),
            "{open}"
        );
        let shallower = format!(
            "{open}{}{}{close}",
            "[".repeat(inner - 1),
            "]".repeat(inner - 1)
        );
        assert!(
            OutcomeReader::<&str>::new(&[]).read_str(&shallower).is_ok(),
            "{open}"
        );
    }
}

#[test]
fn unknown_fields_are_ignored_but_still_checked_as_json() {
    let o = read(
        r#"{"status": "final", "answer": "5", "ts": "2026-03-01", "request_id": {"a": [1, 2.5, null]}}"#,
    )
    .unwrap();
    assert_eq!(o.answer.as_deref(), Some("5"));
    // As when the line is parsed into a map first: an out-of-range number is bad JSON.
    let text = r#"{"status": "final", "noise": 1e400}"#;
    assert!(OutcomeReader::<&str>::new(&[]).read_str(text).is_err());
    assert!(serde_json::from_str::<Value>(text).is_err());
}

#[test]
fn numbers_and_booleans_are_answers_in_their_json_text() {
    for (answer, text) in [("5", "5"), ("-2", "-2"), ("2.5", "2.5"), ("true", "true")] {
        let line = format!(r#"{{"status": "final", "answer": {answer}}}"#);
        assert_eq!(read(&line).unwrap().answer.as_deref(), Some(text));
    }
    let o = read(r#"{"answer": null}"#).unwrap();
    assert_eq!(o.answer, None);
}

#[test]
fn error_and_usage_shapes() {
    let o = read(
        r#"{"status": "error", "error": {"type": "KeyError", "message": "x", "trace": []},
            "usage": {"input_tokens": 3}}"#,
    )
    .unwrap();
    assert_eq!(
        o.error,
        Some(AgentError {
            kind: "KeyError".into(),
            message: "x".into()
        })
    );
    assert_eq!(o.usage, vec![json!({"input_tokens": 3})]);
    let o = read(r#"{"error": "Boom", "usage": [{"a": 1}, {"b": 2}]}"#).unwrap();
    assert_eq!(o.error.unwrap().kind, "Boom");
    assert_eq!(o.usage.len(), 2);
}

#[test]
fn extra_keys_come_back_even_when_they_are_outcome_fields() {
    let keys = ["task", "status", "trajectory", "missing", "task"];
    let read = OutcomeReader::new(&keys)
        .read_str(r#"{"task": "t1", "status": "done", "trajectory": [["a", 1]], "task": "t2"}"#)
        .unwrap()
        .unwrap();
    assert_eq!(
        read.extras,
        vec![
            Some(json!("t2")),
            Some(json!("done")),
            Some(json!([["a", 1]])),
            None,
            Some(json!("t2")),
        ]
    );
    let outcome = read.outcome.unwrap();
    assert_eq!(outcome.status, Some(Status::Final));
    assert_eq!(outcome.trajectory[0].tool, "a");
}

#[test]
fn other_json_values_are_not_objects() {
    for (text, kind) in [
        ("[1, {\"a\": 2}]", "a list"),
        ("\"x\"", "a string"),
        ("7", "a number"),
        ("true", "a boolean"),
        ("null", "null"),
    ] {
        let read = OutcomeReader::<&str>::new(&[]).read_str(text).unwrap();
        assert_eq!(read.unwrap_err(), NotAnObject(kind), "{text}");
    }
    assert!(OutcomeReader::<&str>::new(&[]).read_str("{} x").is_err());
}

#[test]
fn reading_text_and_reading_a_parsed_object_agree() {
    for text in [
        r#"{"status": "final", "answer": "5", "trajectory": [["calc", "2+3"]], "tool_calls": 4}"#,
        r#"{"status": "hit_cap", "steps": 9, "tools_used": ["a", "b"], "trajectory": []}"#,
        r#"{"status": null, "trajectory": null, "usage": null, "error": null}"#,
        r#"{"trajectory": {"tool": "a"}}"#,
        r#"{"trajectory": "a"}"#,
        r#"{"tool_calls": -1}"#,
        r#"{"steps": 1.5}"#,
        r#"{"tools_used": [1]}"#,
        r#"{"tools_used": "a"}"#,
        r#"{"usage": 3}"#,
        r#"{"error": 3}"#,
        r#"{"error": {"type": " ", "message": {"m": 1}}}"#,
        r#"{"status": "final", "status": "gave_up"}"#,
        r#"{"answer": [1, "a"], "answer": {"k": "v"}}"#,
    ] {
        assert_eq!(read(text), from_map(text), "{text}");
    }
}
