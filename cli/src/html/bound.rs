//! Keeps one attempt's data small enough for the page, saying what was cut.
//!
//! An agent may answer with 5 MB of text or a trajectory of a million steps. The page shows
//! the start of each long text and the first items of each long list, and lists what it left
//! out on the attempt itself (`_left_out`), so a huge attempt never breaks the page and is
//! never silently shortened.

use serde_json::{Map, Value};

/// Where the page keeps the notes on what it cut from an attempt.
pub const LEFT_OUT_KEY: &str = "_left_out";

/// The most text of one string shown in the page.
const MAX_STRING_BYTES: usize = 64 * 1024;
/// A line this short is shown whole: all its text fits in what one string may show, and a
/// long list in it is still small.
pub const EMBED_AS_IS_BYTES: usize = MAX_STRING_BYTES;
/// The most text of one attempt, all strings together.
const MAX_ATTEMPT_TEXT_BYTES: usize = 1024 * 1024;
/// The most items of one list (trajectory steps, checks, usage objects) or keys of one object.
const MAX_ITEMS: usize = 2000;
/// Notes kept per attempt; the rest are counted.
const MAX_NOTES: usize = 20;

/// Cuts long strings and lists of `attempt` in place and records on it what was left out.
/// Returns how many cuts were made.
pub fn bound_attempt(attempt: &mut Value) -> usize {
    let mut cutter = Cutter {
        text_left: MAX_ATTEMPT_TEXT_BYTES,
        notes: Vec::new(),
        cuts: 0,
    };
    let mut path = String::new();
    cutter.visit(attempt, &mut path);
    let cuts = cutter.cuts;
    if cuts > 0 {
        let mut notes = cutter.notes;
        if cuts > notes.len() {
            notes.push(format!("and {} more cuts", cuts - notes.len()));
        }
        if let Value::Object(object) = attempt {
            object.insert(
                LEFT_OUT_KEY.to_owned(),
                Value::Array(notes.into_iter().map(Value::String).collect()),
            );
        }
    }
    cuts
}

struct Cutter {
    text_left: usize,
    notes: Vec<String>,
    cuts: usize,
}

impl Cutter {
    fn note(&mut self, text: String) {
        self.cuts += 1;
        if self.notes.len() < MAX_NOTES {
            self.notes.push(text);
        }
    }

    fn visit(&mut self, value: &mut Value, path: &mut String) {
        match value {
            Value::String(text) => self.cut_text(text, path),
            Value::Array(items) => {
                if items.len() > MAX_ITEMS {
                    self.note(format!(
                        "{}: {} items, the first {MAX_ITEMS} shown",
                        shown_path(path),
                        items.len()
                    ));
                    items.truncate(MAX_ITEMS);
                }
                for (i, item) in items.iter_mut().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    self.visit(item, path);
                    path.truncate(len);
                }
            }
            Value::Object(object) => {
                if object.len() > MAX_ITEMS {
                    self.note(format!(
                        "{}: {} keys, the first {MAX_ITEMS} shown",
                        shown_path(path),
                        object.len()
                    ));
                    let kept: Map<String, Value> =
                        std::mem::take(object).into_iter().take(MAX_ITEMS).collect();
                    *object = kept;
                }
                for (key, item) in object.iter_mut() {
                    let len = path.len();
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                    self.visit(item, path);
                    path.truncate(len);
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    fn cut_text(&mut self, text: &mut String, path: &str) {
        let limit = MAX_STRING_BYTES.min(self.text_left);
        if text.len() > limit {
            let mut end = limit;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            self.note(format!(
                "{}: {} long, the first {} shown",
                shown_path(path),
                size(text.len()),
                size(end)
            ));
            text.truncate(end);
        }
        self.text_left -= text.len();
    }
}

fn shown_path(path: &str) -> &str {
    if path.is_empty() { "the attempt" } else { path }
}

/// A byte count as a person reads it.
fn size(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b >= KIB * KIB {
        format!("{:.1} MiB", b / (KIB * KIB))
    } else if b >= KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_5_mb_answer_is_cut_at_64_kib_with_a_note() {
        let mut attempt = json!({"task": "t", "answer": "é".repeat(2_621_440)});
        assert_eq!(bound_attempt(&mut attempt), 1);
        let answer = attempt["answer"].as_str().unwrap();
        assert!(answer.len() <= MAX_STRING_BYTES && answer.len() > MAX_STRING_BYTES - 4);
        assert_eq!(
            attempt[LEFT_OUT_KEY],
            json!(["answer: 5.0 MiB long, the first 64.0 KiB shown"])
        );
    }

    #[test]
    fn long_lists_and_the_total_text_are_bounded() {
        let steps: Vec<Value> = (0..5000)
            .map(|i| json!({"tool": "t", "result": "x".repeat(60_000), "i": i}))
            .collect();
        let mut attempt = json!({"trajectory": steps});
        let cuts = bound_attempt(&mut attempt);
        let text = serde_json::to_string(&attempt).unwrap();
        assert!(text.len() < 2 * MAX_ATTEMPT_TEXT_BYTES, "{}", text.len());
        assert_eq!(attempt["trajectory"].as_array().unwrap().len(), MAX_ITEMS);
        let notes = attempt[LEFT_OUT_KEY].as_array().unwrap();
        assert_eq!(notes[0], "trajectory: 5000 items, the first 2000 shown");
        assert!(cuts > MAX_NOTES);
        assert_eq!(notes.len(), MAX_NOTES + 1);
    }

    #[test]
    fn a_small_attempt_is_left_as_it_is() {
        let mut attempt = json!({"task": "t", "answer": "42", "trajectory": [["calc", "6*7"]]});
        let before = attempt.clone();
        assert_eq!(bound_attempt(&mut attempt), 0);
        assert_eq!(attempt, before);
    }
}
