//! The scanner held to the reference reader: for any text, [`OutcomeReader`] reads what a
//! plain `serde_json::Value` parse and [`Outcome::from_json`] read (the same outcome, the
//! same extra values, the same errors, to the byte), and plain lines are read by the
//! scanner, not only by the reference after it gives up.
//!
//! The texts are outcome lines built from every shape of every field, written compact, with
//! `json.dumps`'s default spacing or pretty, with escapes, repeated keys and numbers out of
//! range; the same lines with bytes deleted, inserted or replaced; and arbitrary text over
//! JSON's alphabet.

use super::keys::KeyFilter;
use super::scan::scan_into;
use super::{Extra, NotAnObject, Outcome, OutcomeReader, kind_of};
use proptest::prelude::*;
use serde_json::Value;

/// Extra keys as `grade` asks for them, one of which is an outcome field too.
const EXTRAS: [&str; 4] = ["task", "attempt", "ts", "status"];

/// What the reference reads in `text`, as text to compare (`Debug` shows a compact JSON
/// value as its text, so the comparison is byte for byte).
fn reference(text: &str, keys: &[&str]) -> String {
    match serde_json::from_str::<Value>(text) {
        Err(e) => format!("bad JSON: {e}"),
        Ok(Value::Object(object)) => {
            let extras: Vec<Option<&Value>> = keys.iter().map(|key| object.get(*key)).collect();
            format!("{:?} {extras:?}", Outcome::from_json(&object))
        }
        Ok(other) => format!("{:?}", NotAnObject(kind_of(&other))),
    }
}

/// What [`OutcomeReader::read_str`] reads in `text`, in the form of [`reference`].
fn read(text: &str, keys: &[&str]) -> String {
    match OutcomeReader::new(keys).read_str(text) {
        Err(e) => format!("bad JSON: {e}"),
        Ok(Ok(read)) => {
            let extras: Vec<Option<&Value>> = read.extras.iter().map(Option::as_ref).collect();
            format!("{:?} {extras:?}", read.outcome)
        }
        Ok(Err(not_an_object)) => format!("{not_an_object:?}"),
    }
}

/// Whether the scanner reads `text` itself rather than leaving it to the reference.
fn scanned(text: &str, keys: &[&str]) -> bool {
    let mut extras = Vec::new();
    scan_into(
        text,
        keys,
        KeyFilter::of(keys),
        &mut Outcome::default(),
        &mut extras,
    )
    .is_some()
}

/// Asserts that both readers read `text` alike, with and without extra keys.
fn assert_alike(text: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(read(text, &EXTRAS), reference(text, &EXTRAS), "{}", text);
    prop_assert_eq!(read(text, &[]), reference(text, &[]), "{}", text);
    Ok(())
}

#[test]
fn a_program_s_lines_are_scanned_and_read_as_the_reference_reads_them() {
    for line in [
        r#"{"task":"refund_A21","attempt":0,"ts":"2026-03-01T00:00:00Z","status":"gave_up","trajectory":[{"tool":"lookup_order","args":{"order_id":"A21"}},["lookup_order",{"order_id":"A21"}]],"usage":{"provider":"anthropic","model":"claude-sonnet-4-6","input_tokens":8713,"output_tokens":239},"steps":4}"#,
        r#"{"order": "A1", "trajectory": [["get_order", "A1"], ["refund", {"order_id": "A1", "amount": 5}]]}"#,
        r#" { "task" : "t", "status" : "final", "answer" : 5, "latency" : 1.25, "trajectory" : [ ] , "usage" : [ {"input_tokens": 3} , {"prompt_tokens": 1} ] } "#,
        "{\n  \"task\": \"t\",\n  \"trajectory\": [\n    [\n      \"a\",\n      {\n        \"k\": [\n          1,\n          true\n        ]\n      }\n    ]\n  ]\n}",
        r#"{"task":"t","status":"error","error":{"type":"KeyError","message":"x"},"trajectory":null,"tools_used":["a"],"tool_calls":7}"#,
        r#"{"task":"t","trajectory":[{"tool":"a","error":"timeout","result":null,"n":[1,{"x":-0}]}],"answer":-12}"#,
        r#"{"status":"final","task":"a","status":"error","task":"b","trajectory":[{"tool":"a","tool":"b"}]}"#,
        r#"{"task":"t\u0041","answer":"REFUNDED ORDER A3\n","trajectory":[["a\"b",{"k\n":"\\"}]]}"#,
        "{}",
        // Arguments serde_json writes otherwise: repeated keys, more keys than are checked,
        // `-0`, fractions, escapes, spaced or not.
        r#"{"task":"t","trajectory":[["a",{"k":-5,"b":true,"c":null,"d":"xé","e":0,"f":false}],["b",{}],["c",{"a":-0}],["d",{"a":1,"a":2}]]}"#,
        r#"{"task":"t","trajectory":[["a",{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}],["b",{"a":1.5}],["c",{"a":"\n"}],["d",{"a":[1]}]]}"#,
        r#"{"task": "t", "trajectory": [["d", {"a": 1, "a": 2.50}], ["e", {"\u0061": "\/"}]]}"#,
        r#"{"task":"t","trajectory":[{"tool":"a","args":{"order_id":"A1","n":123456789012345678}},{"tool":"b","args":{"a":{"b":1}}}]}"#,
        // As deep as the scanner goes.
        &format!(r#"{{"usage":{}{}}}"#, "[".repeat(32), "]".repeat(32)),
    ] {
        assert!(scanned(line, &EXTRAS), "{line}");
        assert_eq!(read(line, &EXTRAS), reference(line, &EXTRAS), "{line}");
        assert_eq!(read(line, &[]), reference(line, &[]), "{line}");
    }
}

#[test]
fn flat_arguments_read_alike_however_they_are_spaced_and_however_long() {
    let long = |n: usize| format!(r#"{{"k":"{}"}}"#, "x".repeat(n - 8));
    let args = [
        r#"{}"#.to_owned(),
        r#"{"order_id":"A1"}"#.to_owned(),
        r#"{"order_id":"A1","amount":-5,"ok":true,"no":false,"x":null,"z":0}"#.to_owned(),
        r#"{"a":"é ü","b":"","c":" : , "}"#.to_owned(),
        // Around the room a flat object is made compact in: under, at and over it.
        long(63),
        long(64),
        long(65),
        // Not flat or not plain: the general way.
        r#"{"a":1,"a":2}"#.to_owned(),
        r#"{"a":{"b":1}}"#.to_owned(),
        r#"{"a":[1,2]}"#.to_owned(),
        r#"{"a":1.5}"#.to_owned(),
        r#"{"a":-0}"#.to_owned(),
        r#"{"\u0061":"b"}"#.to_owned(),
        r#"{"a":"\n"}"#.to_owned(),
        r#"{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}"#.to_owned(),
    ];
    for args in &args {
        for spacing in 0..3 {
            let line = spaced(
                &format!(
                    r#"{{"task":"t","trajectory":[["a",{args}],{{"tool":"b","args":{args}}}],"usage":{args}}}"#
                ),
                spacing,
            );
            assert!(scanned(&line, &EXTRAS), "{line}");
            assert_eq!(read(&line, &EXTRAS), reference(&line, &EXTRAS), "{line}");
        }
    }
}

#[test]
fn lines_that_are_not_plain_are_left_to_the_reference() {
    for line in [
        r#"{"task":"t\x"}"#,
        r#"{"task":"t\ud800"}"#,
        r#"{"task":"t","n":1e3}"#,
        r#"{"task":"t","n":12345678901234567890}"#,
        r#"{"trajectory":[{"tool":5,"tool":"b"}]}"#,
        r#"{"trajectory":[["a"]]}"#,
        r#"{"trajectory":[["a",1,2]]}"#,
        r#"{"trajectory":[{"args":1}]}"#,
        r#"{"trajectory":[42]}"#,
        r#"{"trajectory":"x"}"#,
        r#"{"status":"finished"}"#,
        r#"{"tool_calls":-1}"#,
        r#"{"usage":"x"}"#,
        r#"{"a":01}"#,
        r#"{"a":1.}"#,
        r#"{"a":-}"#,
        r#"{"a":tru}"#,
        r#"{"a":1,}"#,
        r#"{"a":1} x"#,
        // Deeper than the scanner goes.
        &format!(r#"{{"usage":{}{}}}"#, "[".repeat(33), "]".repeat(33)),
        &format!(
            r#"{{"trajectory":[["t",{}{}]]}}"#,
            "[".repeat(31),
            "]".repeat(31)
        ),
        r#"[1]"#,
        "{\"a\":\"tab\there\"}",
    ] {
        assert!(!scanned(line, &EXTRAS), "{line}");
        assert_eq!(read(line, &EXTRAS), reference(line, &EXTRAS), "{line}");
    }
}

/// Some JSON value as text: canonical or not, with escapes, repeated keys and numbers
/// serde_json reads as floats or refuses.
fn any_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        Just("false".to_owned()),
        Just("-0".to_owned()),
        Just("-0.0".to_owned()),
        Just("1.50".to_owned()),
        Just("1e2".to_owned()),
        Just("1e400".to_owned()),
        Just("18446744073709551616".to_owned()),
        Just("18446744073709551615".to_owned()),
        Just("123456789012345678".to_owned()),
        Just("-123456789012345678".to_owned()),
        any::<i32>().prop_map(|n| n.to_string()),
        "[a-c\u{e9} .!]{0,4}".prop_map(|s| format!("\"{s}\"")),
        Just(r#""esc\"aped\n\u00e9\/""#.to_owned()),
        Just("\"final\"".to_owned()),
        Just("\"DONE\"".to_owned()),
        Just("\" \"".to_owned()),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4)
                .prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "a",
                        "b",
                        "\\u0061",
                        "order_id",
                        "tool",
                        "args",
                        "type",
                        "message",
                        "input_tokens",
                        "model"
                    ]),
                    inner
                ),
                0..10
            )
            .prop_map(|members| {
                let members: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("\"{k}\":{v}"))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

/// A step in either shape, well formed or not.
fn any_step() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            any_value(),
            prop::option::of(any_value()),
            prop::option::of(any_value()),
            prop::option::of(any_value()),
        )
            .prop_map(|(args, error, result, other)| {
                let mut members =
                    vec!["\"tool\":\"refund\"".to_owned(), format!("\"args\":{args}")];
                members.extend(error.map(|e| format!("\"error\":{e}")));
                members.extend(result.map(|r| format!("\"result\":{r}")));
                members.extend(other.map(|o| format!("\"latency\":{o}")));
                format!("{{{}}}", members.join(","))
            }),
        any_value().prop_map(|arg| format!("[\"check_eligibility\",{arg}]")),
        "[a-z_]{1,12}".prop_map(|tool| format!("[\"{tool}\",{{\"order_id\":\"A1\"}}]")),
        any_value().prop_map(|v| format!("{{\"tool\":{v}}}")),
        any_value(),
    ]
}

/// An outcome line: any of its fields, each in any shape, and extra keys, in any order and
/// maybe repeated.
fn any_line() -> impl Strategy<Value = String> {
    let field = prop::sample::select(vec![
        "task",
        "attempt",
        "status",
        "answer",
        "tool_calls",
        "tools_used",
        "steps",
        "error",
        "usage",
        "ts",
        "trajectory",
        "st\\u0061tus",
    ]);
    let member = prop_oneof![
        (field, any_value()).prop_map(|(key, value)| format!("\"{key}\":{value}")),
        prop::collection::vec(any_step(), 0..5)
            .prop_map(|steps| format!("\"trajectory\":[{}]", steps.join(","))),
    ];
    (prop::collection::vec(member, 0..8), 0..3usize)
        .prop_map(|(members, spacing)| spaced(&format!("{{{}}}", members.join(",")), spacing))
}

/// `line` as written compact (0), with `json.dumps`'s separators (1) or spread over lines
/// (2, brackets spaced inside too). Only text outside strings is spaced; the strings built
/// here hold no escaped quote before a comma, colon or bracket.
fn spaced(line: &str, spacing: usize) -> String {
    let (comma, colon, inside) = match spacing {
        0 => return line.to_owned(),
        1 => (", ", ": ", false),
        _ => (" ,\n\t", " :\r\n ", true),
    };
    let mut out = String::with_capacity(line.len() * 2);
    let mut in_string = false;
    let mut escaped = false;
    for c in line.chars() {
        match c {
            '"' if !escaped => in_string = !in_string,
            ',' if !in_string => {
                out.push_str(comma);
                continue;
            }
            ':' if !in_string => {
                out.push_str(colon);
                continue;
            }
            '{' | '[' if !in_string && inside => {
                out.push(c);
                out.push_str("\n  ");
                continue;
            }
            '}' | ']' if !in_string && inside => out.push_str(" \n"),
            _ => {}
        }
        escaped = in_string && c == '\\' && !escaped;
        out.push(c);
    }
    out
}

/// One change to a line: bytes deleted, a JSON byte inserted or a byte replaced.
#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize, usize),
    Insert(usize, char),
    Replace(usize, char),
}

fn any_mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop::sample::select(vec![
        '{', '}', '[', ']', '"', ':', ',', '\\', ' ', '\n', '0', '1', '-', '.', 'e', 'n', 't', 'u',
        '\u{1}', '\u{e9}',
    ]);
    prop_oneof![
        (any::<usize>(), 1..4usize).prop_map(|(at, length)| Mutation::Delete(at, length)),
        (any::<usize>(), byte.clone()).prop_map(|(at, c)| Mutation::Insert(at, c)),
        (any::<usize>(), byte).prop_map(|(at, c)| Mutation::Replace(at, c)),
    ]
}

/// `line` with `mutation` applied at a character boundary.
fn mutate(line: &str, mutation: &Mutation) -> String {
    let boundaries: Vec<usize> = line
        .char_indices()
        .map(|(at, _)| at)
        .chain([line.len()])
        .collect();
    let at = |n: usize| boundaries[n % boundaries.len()];
    let mut out = line.to_owned();
    match *mutation {
        Mutation::Delete(n, length) => {
            let start = at(n);
            let end = boundaries
                .iter()
                .copied()
                .find(|&b| b >= start + length)
                .unwrap_or(line.len());
            out.replace_range(start..end, "");
        }
        Mutation::Insert(n, c) => out.insert(at(n), c),
        Mutation::Replace(n, c) => {
            let start = at(n);
            let end = line[start..]
                .chars()
                .next()
                .map_or(start, |old| start + old.len_utf8());
            out.replace_range(start..end, c.encode_utf8(&mut [0; 4]));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_outcome_line_reads_as_the_reference_reads_it(line in any_line()) {
        assert_alike(&line)?;
    }

    #[test]
    fn a_line_with_bytes_changed_reads_as_the_reference_reads_it(
        line in any_line(),
        mutations in prop::collection::vec(any_mutation(), 1..4),
    ) {
        let mutated = mutations.iter().fold(line, |line, m| mutate(&line, m));
        assert_alike(&mutated)?;
    }

    #[test]
    fn any_text_reads_as_the_reference_reads_it(
        text in "[{}\\[\\]\":, \n\\\\a-ct0-2.eE+\\-\u{e9}\u{1}]{0,40}",
    ) {
        assert_alike(&text)?;
        assert_alike(&format!("{{\"trajectory\":[{text}]}}"))?;
    }

    /// Line after line into one outcome: nothing of an earlier line stays behind.
    #[test]
    fn lines_read_into_one_outcome_read_as_each_alone(
        lines in prop::collection::vec(any_line(), 1..6)
    ) {
        let mut outcome = Outcome::default();
        let mut extras = Vec::new();
        for line in &lines {
            let into = match OutcomeReader::new(&EXTRAS).read_str_into(line, &mut outcome, &mut extras) {
                Err(e) => format!("bad JSON: {e}"),
                Ok(Err(not_an_object)) => format!("{not_an_object:?}"),
                Ok(Ok(read)) => {
                    let values: Vec<Option<Value>> = extras
                        .iter()
                        .map(|e| e.as_ref().map(|e| e.to_value(line).expect("checked text")))
                        .collect();
                    let values: Vec<Option<&Value>> = values.iter().map(Option::as_ref).collect();
                    format!("{:?} {values:?}", read.map(|()| &outcome))
                }
            };
            prop_assert_eq!(into, reference(line, &EXTRAS), "{}", line);
            for extra in extras.iter().flatten() {
                if let Some(plain) = extra.plain_str(line) {
                    prop_assert_eq!(Some(Value::from(plain)), extra.to_value(line));
                }
            }
        }
    }
}

/// The reference writes the scanner's values exactly: a value read from text is what the
/// reference parses, whichever way the scanner kept it.
#[test]
fn an_extra_value_is_the_value_of_its_text() {
    let line = r#"{"task": "t", "attempt": -0, "ts": {"a": [1.5, "x"]}}"#;
    let mut extras = Vec::new();
    scan_into(
        line,
        &EXTRAS,
        KeyFilter::of(&EXTRAS),
        &mut Outcome::default(),
        &mut extras,
    )
    .expect("a plain line");
    let values: Vec<Option<Value>> = extras
        .iter()
        .map(|extra| extra.as_ref().and_then(|e| e.to_value(line)))
        .collect();
    let parsed: Value = serde_json::from_str(line).unwrap();
    let expected: Vec<Option<Value>> = EXTRAS.iter().map(|k| parsed.get(k).cloned()).collect();
    assert_eq!(values, expected);
    assert!(matches!(extras[0], Some(Extra::Text(_))));
}
