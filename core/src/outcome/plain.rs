//! A fast reader for plain log lines, tried before the general one.
//!
//! Most outcome lines are written by a program: compact or evenly spaced, integers or
//! short decimals for numbers. Handing every token of such a line to a serde visitor costs
//! several times what scanning its bytes does, so this reader scans the line itself and
//! builds the same fields the general reader builds, which [`Outcome::from_fields`] then
//! checks with the same rules.
//!
//! It gives up (returns `None`) on anything it does not read exactly as the general
//! reader would: a control character or a bad escape in a string, a number with an exponent
//! or more than 18 integer digits, nesting deeper than [`MAX_DEPTH`], a trajectory or step
//! that is not a list of well-formed objects or pairs, or any JSON error. The general
//! reader then reads the line and reports what is wrong with it, so a line is accepted,
//! refused and explained exactly as before, only faster when it is plain. A key given twice
//! keeps its last value, as in the general reader.

use super::read::{Extra, Field, KeyFilter, RawFields, ReadOutcome, extra_bits, field_of, key_bit};
use super::steps::RawTrajectory;
use super::usage::RawUsage;
use super::{CompactString, Outcome, OutcomeError, Step};
use crate::compact_json::{CHECKED_KEYS, CompactJson, MAX_CHECKED_DEPTH, string_stop};
use serde_json::Value;
use std::borrow::Cow;

/// Deepest nesting read; deeper lines go to the general reader, which has its own limit.
/// No deeper than the compact text check goes, so a value found compact here is compact
/// there.
const MAX_DEPTH: usize = MAX_CHECKED_DEPTH;

/// How deep a field's value sits: inside the line's object.
const FIELD_DEPTH: usize = 1;

/// How deep a step's members sit: inside the line's object, the trajectory and the step.
const STEP_DEPTH: usize = 3;

/// Most integer digits read; longer integers may not fit 64 bits.
const MAX_DIGITS: usize = 18;

/// Reads `text` as an outcome with the values of `extra_keys`, or `None` when the line
/// is not plain (see the module docs).
pub(super) fn read_plain<S: AsRef<str>>(
    text: &str,
    extra_keys: &[S],
    filter: KeyFilter,
) -> Option<ReadOutcome> {
    let mut outcome = Outcome::default();
    let mut spans = Vec::new();
    let read = read_plain_into(text, extra_keys, filter, &mut outcome, &mut spans)?;
    let extras = spans
        .iter()
        .map(|extra| match extra {
            None => Some(None),
            Some(extra) => extra.to_value(text).map(Some),
        })
        .collect::<Option<Vec<_>>>()?;
    Some(ReadOutcome {
        outcome: read.map(|()| outcome),
        extras,
    })
}

/// [`read_plain`] into `outcome`, whose lists keep their room, giving where the value of
/// each extra key is in `text` rather than the value.
pub(super) fn read_plain_into<S: AsRef<str>>(
    text: &str,
    extra_keys: &[S],
    filter: KeyFilter,
    outcome: &mut Outcome,
    extras: &mut Vec<Option<Extra>>,
) -> Option<Result<(), OutcomeError>> {
    let mut scanner = Scanner::new(text);
    let mut fields = RawFields::default();
    if extras.len() == extra_keys.len() {
        // Only the keys the last line had are reset: a line has few of them, and writing
        // `None` over every slot drops each old value first.
        for extra in extras.iter_mut().filter(|extra| extra.is_some()) {
            *extra = None;
        }
    } else {
        extras.clear();
        extras.resize(extra_keys.len(), None);
    }
    let steps = &mut outcome.trajectory;
    scanner.expect(b'{')?;
    if !scanner.next_is(b'}') {
        loop {
            let key = scanner.string()?;
            scanner.expect(b':')?;
            let field = field_of(&key);
            let extra_bits = extra_bits(extra_keys, filter, &key);
            if extra_bits == 0 {
                scanner.field(field, &mut fields, steps)?;
            } else {
                let span = scanner.value(FIELD_DEPTH)?;
                let start = span.as_ptr() as usize - text.as_ptr() as usize;
                let at = start..start + span.len();
                for (i, extra) in extras.iter_mut().enumerate() {
                    if extra_bits & (1 << i) != 0 {
                        *extra = Some(Extra::Text(at.clone()));
                    }
                }
                if !matches!(field, Field::Other) {
                    Scanner::new(span).field(field, &mut fields, steps)?;
                }
            }
            if !scanner.next_is(b',') {
                scanner.expect(b'}')?;
                break;
            }
        }
    }
    scanner.skip_whitespace();
    if scanner.at != text.len() {
        return None;
    }
    // Filled through a reference: the fields as read are several hundred bytes.
    Some(outcome.fill(&mut fields))
}

/// The text of one line and where reading has got to.
struct Scanner<'t> {
    text: &'t str,
    at: usize,
    /// Set on anything that keeps text from being compact JSON as a [`CompactJson`] holds
    /// it: whitespace, an escape, a fraction, `-0`, an object with a repeated key or more
    /// keys than are checked. Reset before each value kept as text.
    loose: bool,
}

impl<'t> Scanner<'t> {
    fn new(text: &'t str) -> Self {
        Scanner {
            text,
            at: 0,
            loose: false,
        }
    }

    /// Reads the value of `field` into `fields`; a trajectory's steps go into `steps`.
    fn field(&mut self, field: Field, fields: &mut RawFields, steps: &mut Vec<Step>) -> Option<()> {
        match field {
            Field::Trajectory => fields.trajectory = Some(self.trajectory(steps)?),
            Field::Usage => fields.usage = Some(RawUsage::of(self.compact_value(FIELD_DEPTH)?)),
            Field::Other => {
                self.value(FIELD_DEPTH)?;
            }
            field => *fields.value_slot(field) = Some(value_of(self.value(FIELD_DEPTH)?)?),
        }
        Some(())
    }

    /// A trajectory: `null`, or a list of well-formed steps, read into `steps`.
    fn trajectory(&mut self, steps: &mut Vec<Step>) -> Option<RawTrajectory> {
        self.skip_whitespace();
        if self.text[self.at..].starts_with("null") {
            self.value(FIELD_DEPTH)?;
            return Some(RawTrajectory::Null);
        }
        self.expect(b'[')?;
        // A trajectory given twice keeps its last list, as a parsed object would.
        steps.clear();
        if !self.next_is(b']') {
            loop {
                if !self.compact_pair_step(steps) {
                    steps.push(self.step()?);
                }
                if !self.next_is(b',') {
                    self.expect(b']')?;
                    break;
                }
            }
        }
        Some(RawTrajectory::InPlace)
    }

    /// One step: an object with a string `tool`, or a pair `[tool, arg]`.
    fn step(&mut self) -> Option<Step> {
        if self.next_is(b'[') {
            let tool = CompactString::from(self.string()?);
            self.expect(b',')?;
            let args = self.compact_value(STEP_DEPTH)?;
            self.expect(b']')?;
            return Some(Step {
                tool,
                args,
                error: None,
                result: None,
            });
        }
        self.expect(b'{')?;
        let (mut tool, mut args, mut error, mut result) = (None, None, None, None);
        if !self.next_is(b'}') {
            loop {
                let key = self.string()?;
                self.expect(b':')?;
                let slot = match &*key {
                    "tool" => {
                        // Anything but a plain string is for the general reader to report.
                        tool = Some(self.string()?);
                        None
                    }
                    "args" => {
                        args = Some(self.compact_value(STEP_DEPTH)?);
                        None
                    }
                    "error" => Some(&mut error),
                    "result" => Some(&mut result),
                    _ => {
                        self.value(STEP_DEPTH)?;
                        None
                    }
                };
                if let Some(slot) = slot {
                    *slot = Some(self.value(STEP_DEPTH)?);
                }
                if !self.next_is(b',') {
                    self.expect(b'}')?;
                    break;
                }
            }
        }
        let present = |span: Option<&str>| -> Option<Option<Value>> {
            match span {
                None => Some(None),
                Some(span) => Some(Some(value_of(span)?).filter(|v| !v.is_null())),
            }
        };
        Some(Step {
            tool: CompactString::from(tool?),
            args: args.unwrap_or_default(),
            error: present(error)?.map(Box::new),
            result: present(result)?.map(Box::new),
        })
    }

    /// Skips one JSON value, checking it, and gives its text.
    fn value(&mut self, depth: usize) -> Option<&'t str> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_whitespace();
        let start = self.at;
        match *self.text.as_bytes().get(self.at)? {
            // A string without escapes (a task id) needs no `Cow` of its text.
            b'"' => match plain_string(self.text.as_bytes(), self.at) {
                Some(inner) => self.at += inner.len() + 2,
                None => {
                    self.string()?;
                }
            },
            b'{' => {
                self.at += 1;
                let mut keys: [&str; CHECKED_KEYS] = [""; CHECKED_KEYS];
                let mut count = 0;
                if !self.next_is(b'}') {
                    loop {
                        let key_start = self.at;
                        self.string()?;
                        let key = &self.text[key_start..self.at];
                        if count == CHECKED_KEYS || keys[..count].contains(&key) {
                            self.loose = true;
                        } else {
                            keys[count] = key;
                            count += 1;
                        }
                        self.expect(b':')?;
                        self.value(depth + 1)?;
                        if !self.next_is(b',') {
                            self.expect(b'}')?;
                            break;
                        }
                    }
                }
            }
            b'[' => {
                self.at += 1;
                if !self.next_is(b']') {
                    loop {
                        self.value(depth + 1)?;
                        if !self.next_is(b',') {
                            self.expect(b']')?;
                            break;
                        }
                    }
                }
            }
            b't' => self.word("true")?,
            b'f' => self.word("false")?,
            b'n' => self.word("null")?,
            _ => self.number()?,
        }
        Some(&self.text[start..self.at])
    }

    /// A value kept as compact text: as it is written when it already is that, else
    /// transcoded.
    fn compact_value(&mut self, depth: usize) -> Option<CompactJson> {
        self.skip_whitespace();
        if let Some(span) = self.flat_compact_object() {
            return Some(CompactJson::from_compact_text(span));
        }
        self.loose = false;
        let span = self.value(depth)?;
        if self.loose {
            CompactJson::from_json_text(span)
        } else {
            Some(CompactJson::from_compact_text(span))
        }
    }

    /// A pair step as a program writes it, `["refund",{"order_id":"A1"}]`: a tool name
    /// without escapes and arguments that [`flat_compact_object_end`] reads, with no
    /// whitespace. Pushed onto `steps` where it is kept; false, with nothing read, for any
    /// other step.
    fn compact_pair_step(&mut self, steps: &mut Vec<Step>) -> bool {
        let bytes = self.text.as_bytes();
        let start = self.at;
        if bytes.get(start..start + 2) != Some(b"[\"") {
            return false;
        }
        let Some(name_end) = string_stop(bytes, start + 2) else {
            return false;
        };
        // The name's closing quote, then the arguments' opening brace.
        if bytes.get(name_end..name_end + 3) != Some(b"\",{") {
            return false;
        }
        let args_start = name_end + 2;
        let Some(args_end) = flat_compact_object_end(bytes, args_start) else {
            return false;
        };
        if bytes.get(args_end) != Some(&b']') {
            return false;
        }
        steps.push(Step {
            tool: CompactString::from(&self.text[start + 2..name_end]),
            args: CompactJson::from_compact_text(&self.text[args_start..args_end]),
            error: None,
            result: None,
        });
        self.at = args_end + 1;
        true
    }

    /// The text of an object that is compact already and flat, as most call arguments are
    /// (`{"order_id":"A1","amount":5}`), read by [`flat_compact_object_end`]; `None`,
    /// with nothing read, for anything else: [`Scanner::value`] then reads it and says
    /// whether it is compact.
    fn flat_compact_object(&mut self) -> Option<&'t str> {
        let start = self.at;
        if self.text.as_bytes().get(start) != Some(&b'{') {
            return None;
        }
        let end = flat_compact_object_end(self.text.as_bytes(), start)?;
        self.at = end;
        Some(&self.text[start..end])
    }

    /// A string: its text between the quotes when it has no escapes, else the string they
    /// stand for (read by serde_json, which checks them).
    #[inline]
    fn string(&mut self) -> Option<Cow<'t, str>> {
        self.expect(b'"')?;
        let bytes = self.text.as_bytes();
        let start = self.at;
        let mut end = start;
        let mut escaped = false;
        loop {
            // JSON strings hold no raw control characters (serde_json refuses them).
            end = string_stop(bytes, end)?;
            match bytes[end] {
                b'"' => break,
                b'\\' => {
                    // A backslash and the byte it escapes.
                    escaped = true;
                    end += 2;
                }
                _ => return None,
            }
        }
        self.at = end + 1;
        if escaped {
            self.loose = true;
            let quoted = &self.text[start - 1..=end];
            return serde_json::from_str::<String>(quoted).ok().map(Cow::Owned);
        }
        Some(Cow::Borrowed(&self.text[start..end]))
    }

    /// A number as JSON writes it, without an exponent and with at most [`MAX_DIGITS`]
    /// integer digits.
    fn number(&mut self) -> Option<()> {
        let bytes = self.text.as_bytes();
        let negative = bytes.get(self.at) == Some(&b'-');
        self.at += usize::from(negative);
        let digits = self.digits();
        if digits == 0 || digits > MAX_DIGITS {
            return None;
        }
        if bytes[self.at - digits] == b'0' {
            if digits > 1 {
                return None; // a leading zero
            }
            // `-0` is a float to serde_json.
            self.loose |= negative;
        }
        if bytes.get(self.at) == Some(&b'.') {
            self.loose = true;
            self.at += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        (!matches!(bytes.get(self.at), Some(b'e' | b'E'))).then_some(())
    }

    /// Skips ASCII digits, giving how many.
    fn digits(&mut self) -> usize {
        let count = self.text.as_bytes()[self.at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        self.at += count;
        count
    }

    fn word(&mut self, word: &str) -> Option<()> {
        self.text[self.at..]
            .starts_with(word)
            .then(|| self.at += word.len())
    }

    /// Skips whitespace and the byte `byte`, which must come next.
    #[inline]
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.next_is(byte).then_some(())
    }

    /// Skips whitespace, then `byte` when it comes next, saying whether it did.
    #[inline]
    fn next_is(&mut self, byte: u8) -> bool {
        self.skip_whitespace();
        let found = self.text.as_bytes().get(self.at) == Some(&byte);
        self.at += usize::from(found);
        found
    }

    /// Skips the whitespace JSON allows between tokens.
    #[inline]
    fn skip_whitespace(&mut self) {
        let rest = &self.text.as_bytes()[self.at..];
        // Every whitespace byte is at most a space.
        if rest.first().is_none_or(|&b| b > b' ') {
            return;
        }
        self.loose = true;
        self.at += rest
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\n' | b'\t' | b'\r'))
            .count();
    }
}

/// The text between the quotes of the string that starts at `at`, when it holds no escape
/// and no control character.
#[inline]
fn plain_string(bytes: &[u8], at: usize) -> Option<&[u8]> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let end = string_stop(bytes, at + 1)?;
    (bytes[end] == b'"').then(|| &bytes[at + 1..end])
}

/// One past the closing brace of the object whose `{` is at `start`, when it is compact
/// already and flat: string keys and values without escapes, integers of at most
/// [`MAX_DIGITS`] digits other than `-0`, literals, at most [`CHECKED_KEYS`] keys and no
/// whitespace. Read in one pass without the general walk's recursion.
///
/// Keys are not compared with each other: each sets its [`key_bit`], and a key whose bit
/// is set already, repeated or not, gives `None`. The general walk then compares keys
/// exactly, so the result is the same and only slower for the rare object with two keys
/// of the same bit.
fn flat_compact_object_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    if *bytes.get(at)? == b'}' {
        return Some(at + 1);
    }
    let mut seen = 0u64;
    let mut count = 0;
    loop {
        if *bytes.get(at)? != b'"' {
            return None;
        }
        let key_end = string_stop(bytes, at + 1)?;
        if bytes.get(key_end..key_end + 2)? != b"\":" {
            return None;
        }
        let bit = key_bit(&bytes[at + 1..key_end]);
        if seen & bit != 0 || count == CHECKED_KEYS {
            return None;
        }
        seen |= bit;
        count += 1;
        at = key_end + 2;
        at = match *bytes.get(at)? {
            b'"' => {
                let end = string_stop(bytes, at + 1)?;
                if bytes[end] != b'"' {
                    return None;
                }
                end + 1
            }
            b't' if bytes[at..].starts_with(b"true") => at + 4,
            b'f' if bytes[at..].starts_with(b"false") => at + 5,
            b'n' if bytes[at..].starts_with(b"null") => at + 4,
            _ => compact_integer_end(bytes, at)?,
        };
        match bytes.get(at) {
            Some(b',') => at += 1,
            Some(b'}') => return Some(at + 1),
            _ => return None,
        }
    }
}

/// Where the integer that starts at `at` ends, when it is written as serde_json writes
/// it: at most [`MAX_DIGITS`] digits, no leading zero, not `-0`, and no fraction or
/// exponent after it.
fn compact_integer_end(bytes: &[u8], at: usize) -> Option<usize> {
    let negative = bytes.get(at) == Some(&b'-');
    let first = at + usize::from(negative);
    let digits = bytes
        .get(first..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let end = first + digits;
    let plain = (1..=MAX_DIGITS).contains(&digits)
        && (bytes[first] != b'0' || (digits == 1 && !negative))
        && !matches!(bytes.get(end), Some(b'.' | b'e' | b'E'));
    plain.then_some(end)
}

/// The value a span of checked JSON text holds: strings, integers and literals built
/// directly, anything else parsed.
pub(super) fn value_of(span: &str) -> Option<Value> {
    let bytes = span.as_bytes();
    match bytes.first()? {
        // Without escapes, a string's text is between its quotes.
        b'"' if !span.contains('\\') => Some(Value::String(span[1..span.len() - 1].to_owned())),
        b'n' => Some(Value::Null),
        b't' => Some(Value::Bool(true)),
        b'f' => Some(Value::Bool(false)),
        // `-0` is a float to serde_json: parsed below.
        b'-' if bytes.get(1) != Some(&b'0') && bytes[1..].iter().all(u8::is_ascii_digit) => {
            span.parse::<i64>().ok().map(Value::from)
        }
        b'0'..=b'9' if bytes.iter().all(u8::is_ascii_digit) => {
            span.parse::<u64>().ok().map(Value::from)
        }
        _ => serde_json::from_str(span).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::OutcomeSeed;
    use proptest::prelude::*;
    use serde::de::DeserializeSeed;

    const EXTRAS: [&str; 3] = ["task", "attempt", "status"];

    /// What the general reader makes of `text`, as text to compare (`Debug` shows a
    /// `CompactJson` as its text, so the comparison is byte for byte).
    fn general(text: &str, extras: &[&str]) -> Option<String> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let read = OutcomeSeed::new(extras)
            .deserialize(&mut deserializer)
            .ok()?;
        deserializer.end().ok()?;
        let read = read.ok()?;
        Some(format!("{:?} {:?}", read.outcome, read.extras))
    }

    fn plain(text: &str, extras: &[&str]) -> Option<String> {
        read_plain(text, extras, KeyFilter::of(extras))
            .map(|read| format!("{:?} {:?}", read.outcome, read.extras))
    }

    #[test]
    fn keys_of_the_same_bit_are_compared_exactly_before_arguments_are_kept_as_written() {
        assert_eq!(key_bit(b"order_id"), key_bit(b"id"));
        let line = r#"{"trajectory":[["refund",{"order_id":"A1","id":"A1"}],["refund",{"id":"A1","id":"A2"}]]}"#;
        let read = read_plain(line, &[] as &[&str], KeyFilter::of(&[] as &[&str]))
            .expect("plain")
            .outcome
            .expect("an outcome");
        assert_eq!(
            read.trajectory[0].args.as_str(),
            r#"{"order_id":"A1","id":"A1"}"#
        );
        // A repeated key keeps its last value, at its first place.
        assert_eq!(read.trajectory[1].args.as_str(), r#"{"id":"A2"}"#);
    }

    #[test]
    fn a_program_s_line_is_read_here_as_the_general_reader_reads_it() {
        for line in [
            r#"{"task":"refund_A21","attempt":0,"ts":"2026-03-01T00:00:00Z","status":"gave_up","trajectory":[{"tool":"lookup_order","args":{"order_id":"A21"}},["lookup_order",{"order_id":"A21"}]],"usage":{"provider":"anthropic","model":"claude-sonnet-4-6","input_tokens":8713,"output_tokens":239},"steps":4}"#,
            r#" { "task" : "t", "status" : "final", "answer" : 5, "latency" : 1.25, "trajectory" : [ ] , "usage" : [ {"input_tokens": 3} , {"prompt_tokens": 1} ] } "#,
            r#"{"task":"t","status":"error","error":{"type":"KeyError","message":"x"},"trajectory":null,"tools_used":["a"],"tool_calls":7}"#,
            r#"{"task":"t","trajectory":[{"tool":"a","error":"timeout","result":null,"n":[1,{"x":-0}]}],"answer":-12}"#,
            r#"{"status":"final","task":"a","status":"error","task":"b","trajectory":[{"tool":"a","tool":"b"}]}"#,
            r#"{"task":"t\u0041","answer":"REFUNDED ORDER A3\n","trajectory":[["a\"b",{"k\n":"\\"}]]}"#,
            "{}",
            // Flat arguments, compact or not: repeated keys, more keys than are checked,
            // `-0`, fractions and exponents, leading zeros kept for the general reader.
            r#"{"task":"t","trajectory":[["a",{"k":-5,"b":true,"c":null,"d":"xé","e":0,"f":false}],["b",{}],["c",{"a":-0}],["d",{"a":1,"a":2}]]}"#,
            r#"{"task":"t","trajectory":[["a",{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9}],["b",{"a":1.5}],["c",{"a":"\n"}],["d",{"a":[1]}]]}"#,
            r#"{"task":"t","trajectory":[{"tool":"a","args":{"order_id":"A1","n":123456789012345678}},{"tool":"b","args":{"a":{"b":1}}}]}"#,
            // Two different keys of the same bit: left to the general walk, kept as written.
            r#"{"task":"t","trajectory":[["refund",{"order_id":"A1","id":"A1"}],["refund",{"id":"A1","id":"A2"}]]}"#,
            // As deep as this reader goes.
            &format!(r#"{{"usage":{}{}}}"#, "[".repeat(32), "]".repeat(32)),
        ] {
            assert!(plain(line, &EXTRAS).is_some(), "{line}");
            assert_eq!(plain(line, &EXTRAS), general(line, &EXTRAS), "{line}");
            assert_eq!(plain(line, &[]), general(line, &[]), "{line}");
        }
    }

    #[test]
    fn lines_that_are_not_plain_are_left_to_the_general_reader() {
        for line in [
            r#"{"task":"t\x"}"#,
            r#"{"task":"t\ud800"}"#,
            r#"{"task":"t","n":1e3}"#,
            r#"{"task":"t","n":12345678901234567890}"#,
            r#"{"trajectory":[{"tool":5,"tool":"b"}]}"#,
            r#"{"trajectory":[["a"]]}"#,
            r#"{"trajectory":[["a",1,2]]}"#,
            r#"{"trajectory":[{"args":1}]}"#,
            r#"{"trajectory":[{"tool":5}]}"#,
            r#"{"trajectory":[42]}"#,
            r#"{"trajectory":"x"}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":-}"#,
            r#"{"a":tru}"#,
            r#"{"a":1,}"#,
            r#"{"a":1} x"#,
            // Deeper than this reader goes.
            &format!(r#"{{"usage":{}{}}}"#, "[".repeat(33), "]".repeat(33)),
            &format!(
                r#"{{"trajectory":[["t",{}{}]]}}"#,
                "[".repeat(31),
                "]".repeat(31)
            ),
            r#"[1]"#,
            "{\"a\":\"tab\there\"}",
        ] {
            assert_eq!(plain(line, &EXTRAS), None, "{line}");
        }
    }

    /// Some JSON value as text: plain or not, compact or spaced.
    fn any_value() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("-0".to_owned()),
            Just("-0.0".to_owned()),
            Just("1.50".to_owned()),
            Just("1e2".to_owned()),
            Just("1e400".to_owned()),
            Just("18446744073709551616".to_owned()),
            Just("123456789012345678".to_owned()),
            Just("-123456789012345678".to_owned()),
            any::<i32>().prop_map(|n| n.to_string()),
            "[a-c\u{e9} .!]{0,4}".prop_map(|s| format!("\"{s}\"")),
            Just(r#""esc\"aped\n""#.to_owned()),
            Just("\"final\"".to_owned()),
            Just("\"DONE\"".to_owned()),
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
                            "order_id",
                            "tool",
                            "args",
                            "type",
                            "message",
                            "input_tokens",
                            "output_tokens",
                            "model"
                        ]),
                        inner
                    ),
                    0..4
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
                prop::option::of(any_value())
            )
                .prop_map(|(args, error, other)| {
                    let mut members =
                        vec!["\"tool\":\"refund\"".to_owned(), format!("\"args\":{args}")];
                    members.extend(error.map(|e| format!("\"error\":{e}")));
                    members.extend(other.map(|o| format!("\"latency\":{o}")));
                    format!("{{{}}}", members.join(","))
                }),
            any_value().prop_map(|arg| format!("[\"check_eligibility\", {arg}]")),
            any_value().prop_map(|arg| format!("[\"refund\",{arg}]")),
            any_value().prop_map(|v| format!("{{\"tool\":{v}}}")),
            any_value(),
        ]
    }

    fn any_line() -> impl Strategy<Value = String> {
        let member = prop_oneof![
            any_value().prop_map(|v| format!("\"task\":{v}")),
            any_value().prop_map(|v| format!("\"attempt\":{v}")),
            any_value().prop_map(|v| format!("\"status\":{v}")),
            any_value().prop_map(|v| format!("\"answer\":{v}")),
            any_value().prop_map(|v| format!("\"tool_calls\":{v}")),
            any_value().prop_map(|v| format!("\"tools_used\":{v}")),
            any_value().prop_map(|v| format!("\"steps\":{v}")),
            any_value().prop_map(|v| format!("\"error\":{v}")),
            any_value().prop_map(|v| format!("\"usage\":{v}")),
            any_value().prop_map(|v| format!("\"ts\":{v}")),
            any_value().prop_map(|v| format!("\"trajectory\":{v}")),
            prop::collection::vec(any_step(), 0..5)
                .prop_map(|steps| format!("\"trajectory\": [{}]", steps.join(", "))),
        ];
        (prop::collection::vec(member, 0..8), any::<bool>()).prop_map(|(members, spaced)| {
            let line = format!("{{{}}}", members.join(","));
            if spaced {
                line.replace(',', " ,\n ").replace(':', " : ")
            } else {
                line
            }
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Line after line into one outcome: nothing of an earlier line stays behind.
        #[test]
        fn lines_read_into_one_outcome_read_as_each_alone(
            lines in prop::collection::vec(any_line(), 1..6)
        ) {
            let mut outcome = Outcome::default();
            let mut extras = Vec::new();
            for line in &lines {
                let into = OutcomeSeed::new(&EXTRAS)
                    .read_str_into(line, &mut outcome, &mut extras)
                    .ok()
                    .and_then(Result::ok)
                    .map(|read| match read {
                        Ok(()) => {
                            let values: Vec<Option<Value>> = extras
                                .iter()
                                .map(|e| e.as_ref().map(|e| e.to_value(line).unwrap()))
                                .collect();
                            format!("{:?} {:?}", Ok::<_, ()>(&outcome), values)
                        }
                        Err(e) => format!("{:?}", Err::<(), _>(e)),
                    });
                let alone = OutcomeSeed::new(&EXTRAS)
                    .read_str(line)
                    .ok()
                    .and_then(Result::ok)
                    .map(|read| match read.outcome {
                        Ok(o) => format!("{:?} {:?}", Ok::<_, ()>(&o), read.extras),
                        Err(e) => format!("{:?}", Err::<(), _>(e)),
                    });
                prop_assert_eq!(into, alone, "{}", line);
            }
        }

        #[test]
        fn a_line_read_here_reads_as_the_general_reader_reads_it(line in any_line()) {
            if let Some(read) = plain(&line, &EXTRAS) {
                prop_assert_eq!(Some(read), general(&line, &EXTRAS), "{}", line);
            }
            if let Some(read) = plain(&line, &[]) {
                prop_assert_eq!(Some(read), general(&line, &[]), "{}", line);
            }
        }
    }
}
