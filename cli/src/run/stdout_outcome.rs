//! Finding an agent's outcome in what it printed (docs/agent-protocol.md): the last complete top-level
//! JSON object that is an outcome, on one line or pretty-printed over many, else the plain
//! answer.
//!
//! A top-level object starts a line: its `{` comes first on the line, after nothing but
//! spaces or tabs when the whole object fits on that line (`  {"answer": "ok"}  `). The
//! lines inside a pretty-printed object are indented and an object on one of them lies
//! inside the outer one, so neither is top-level. An object with none of the outcome
//! fields (`{"debug": 1}`) is a log line, not the outcome. Stdout whose trimmed text
//! starts with `{` but parses as no object is an invalid output, never a plain answer: a
//! malformed outcome must not erase the trajectory and pass the safety checks.

use serde_json::{Deserializer, Map, Value};

/// What an agent's stdout says.
#[derive(Debug, PartialEq)]
pub enum Printed {
    /// A JSON object: the outcome, still to be checked field by field.
    Object(Map<String, Value>),
    /// Text that is not an outcome: the answer.
    Plain(String),
    /// The agent tried to print an outcome and failed; the parse error says where.
    Invalid(String),
}

/// The fields of an outcome (docs/agent-protocol.md); an object with none of them is not one.
const OUTCOME_FIELDS: [&str; 8] = [
    "status",
    "answer",
    "trajectory",
    "tool_calls",
    "tools_used",
    "steps",
    "usage",
    "error",
];

/// Most candidate lines tried, from the last: bounds the work on adversarial output made
/// of many lines that start with `{` and parse as nothing.
const MAX_CANDIDATES: usize = 256;

/// A complete object found in stdout, with the byte range it spans.
struct Found {
    start: usize,
    end: usize,
    object: Map<String, Value>,
}

/// Reads `stdout` as docs/agent-protocol.md says. Text that is not UTF-8 or holds a NUL is invalid.
pub fn read_stdout(stdout: &[u8]) -> Printed {
    let Ok(text) = std::str::from_utf8(stdout) else {
        return Printed::Invalid("stdout is not UTF-8 text".to_owned());
    };
    if text.contains('\0') {
        return Printed::Invalid("stdout holds a NUL byte".to_owned());
    }
    let mut found: Vec<Found> = line_starts(text)
        .rev()
        .filter_map(|at| {
            let indent = text[at..].len() - text[at..].trim_start_matches([' ', '\t']).len();
            text[at + indent..]
                .starts_with('{')
                .then_some((at + indent, indent > 0))
        })
        .take(MAX_CANDIDATES)
        .filter_map(|(start, indented)| object_at(text, start, indented))
        .collect();
    found.reverse();
    let trimmed = text.trim();
    if found.is_empty() && trimmed.starts_with('{') {
        // All of stdout one object, indented over several lines.
        if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(trimmed) {
            let start = text.len() - text.trim_start().len();
            found.push(Found {
                start,
                end: start + trimmed.len(),
                object,
            });
        }
    }
    // Objects inside another found object are not top-level.
    let top_level: Vec<&Found> = found
        .iter()
        .filter(|inner| {
            !found
                .iter()
                .any(|outer| outer.start < inner.start && inner.end <= outer.end)
        })
        .collect();
    if let Some(outcome) = top_level.iter().rev().find(|f| is_outcome(&f.object)) {
        return Printed::Object(outcome.object.clone());
    }
    if let Some(last) = top_level.last() {
        let line = text[..last.start].matches('\n').count() + 1;
        return Printed::Invalid(format!(
            "stdout holds JSON objects but none has an outcome field ({}); the last is on line {line}",
            OUTCOME_FIELDS.join(", ")
        ));
    }
    if trimmed.starts_with('{') {
        let error = match serde_json::from_str::<Value>(trimmed) {
            Err(error) => error.to_string(),
            Ok(other) => format!(
                "not a JSON object but {}",
                proctor_core::outcome::kind_of(&other)
            ),
        };
        return Printed::Invalid(format!(
            "stdout starts with `{{` but is no JSON object: {error}"
        ));
    }
    Printed::Plain(trimmed.to_owned())
}

fn is_outcome(object: &Map<String, Value>) -> bool {
    OUTCOME_FIELDS
        .iter()
        .any(|field| object.contains_key(*field))
}

/// The byte offsets at which lines begin.
fn line_starts(text: &str) -> impl DoubleEndedIterator<Item = usize> + '_ {
    std::iter::once(0).chain(
        text.match_indices('\n')
            .map(|(at, _)| at + 1)
            .filter(move |&at| at < text.len()),
    )
}

/// The object that starts at `start`, when it is complete and only whitespace follows it
/// on its last line; an `indented` one must also end on its first line.
fn object_at(text: &str, start: usize, indented: bool) -> Option<Found> {
    let mut stream = Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let Some(Ok(Value::Object(object))) = stream.next() else {
        return None;
    };
    let end = start + stream.byte_offset();
    if indented && text[start..end].contains('\n') {
        return None;
    }
    let line_rest = text[end..].split('\n').next().unwrap_or("");
    line_rest
        .trim()
        .is_empty()
        .then_some(Found { start, end, object })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer_of(printed: Printed) -> Option<String> {
        match printed {
            Printed::Object(object) => object.get("answer")?.as_str().map(str::to_owned),
            _ => None,
        }
    }

    #[test]
    fn a_pretty_printed_outcome_is_found_whole() {
        let pretty = serde_json::to_string_pretty(&serde_json::json!({
            "status": "final", "answer": "5",
            "trajectory": [{"tool": "delete_file", "args": {"path": "a"}}],
        }))
        .unwrap();
        let printed = read_stdout(format!("working...\n{pretty}\n").as_bytes());
        let Printed::Object(object) = printed else {
            panic!("{printed:?}")
        };
        assert_eq!(object["trajectory"][0]["tool"], "delete_file");
    }

    #[test]
    fn the_last_complete_object_wins_on_one_line_or_many() {
        let text = "{\"answer\": \"1\"}\n{\n  \"answer\": \"2\"\n}\nbye\n";
        assert_eq!(
            answer_of(read_stdout(text.as_bytes())).as_deref(),
            Some("2")
        );
        let text = "{\n  \"answer\": \"1\"\n}\n{\"answer\": \"2\"}\n";
        assert_eq!(
            answer_of(read_stdout(text.as_bytes())).as_deref(),
            Some("2")
        );
        // An object cut short after a complete one: the complete one stands.
        let text = "{\"answer\": \"1\"}\n{\n  \"answer\": \"2\"\n";
        assert_eq!(
            answer_of(read_stdout(text.as_bytes())).as_deref(),
            Some("1")
        );
    }

    #[test]
    fn one_json_line_with_spaces_around_it_is_an_object() {
        let printed = read_stdout(b"  {\"status\": \"final\", \"answer\": \"ok\"}  \n");
        assert_eq!(answer_of(printed).as_deref(), Some("ok"));
        let printed = read_stdout(b"the answer is\n\t{\"answer\": \"x\"}\n");
        assert_eq!(answer_of(printed).as_deref(), Some("x"));
        // The whole of stdout one object, indented and over several lines.
        let printed = read_stdout(b"  {\n  \"answer\": \"y\"\n  }\n");
        assert_eq!(answer_of(printed).as_deref(), Some("y"));
    }

    #[test]
    fn an_object_inside_a_pretty_printed_one_is_not_top_level() {
        let text = "{\n  \"status\": \"final\",\n  \"answer\": \"outer\",\n  \"trajectory\": [\n    {\"tool\": \"x\", \"error\": \"boom\", \"answer\": \"inner\"}\n  ]\n}\n";
        assert_eq!(
            answer_of(read_stdout(text.as_bytes())).as_deref(),
            Some("outer")
        );
    }

    #[test]
    fn objects_without_an_outcome_field_are_not_the_outcome() {
        let text = "{\"status\": \"final\", \"answer\": \"1\"}\n{\"debug\": 1}\n{}\n";
        assert_eq!(
            answer_of(read_stdout(text.as_bytes())).as_deref(),
            Some("1")
        );
        for text in ["{\"debug\": 1}\n", "ok\n{\"debug\": 1}\n", "{}"] {
            let Printed::Invalid(detail) = read_stdout(text.as_bytes()) else {
                panic!("{text:?} is not invalid")
            };
            assert!(detail.contains("none has an outcome field"), "{detail}");
        }
    }

    #[test]
    fn brace_led_text_that_does_not_parse_is_invalid_with_the_parse_error() {
        let Printed::Invalid(detail) = read_stdout(b"{\"status\": \"final\", \"answer\": 5,\n")
        else {
            panic!("not invalid")
        };
        assert!(detail.contains("EOF while parsing"), "{detail}");
        assert!(matches!(
            read_stdout(b"{'status': 'final'}"),
            Printed::Invalid(_)
        ));
        assert!(matches!(read_stdout(b"\xff\xfe"), Printed::Invalid(_)));
    }

    #[test]
    fn plain_text_and_arrays_are_answers() {
        assert_eq!(read_stdout(b"  42 \n"), Printed::Plain("42".to_owned()));
        assert_eq!(
            read_stdout(b"[1, 2]\n"),
            Printed::Plain("[1, 2]".to_owned())
        );
        assert_eq!(read_stdout(b""), Printed::Plain(String::new()));
    }
}
