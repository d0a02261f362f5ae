//! The scanner: a fast reader for the plain log lines programs write, tried before the
//! reference reader.
//!
//! Handing every token of a line to serde costs several times what scanning its bytes
//! does, so this reads the line itself, compact or spaced, and keeps call arguments and
//! usage objects as their compact text without building them into values: text that is
//! compact already is kept as written, spaced text loses its whitespace, and only a value
//! that serde_json would write differently (an escape, a fraction, `-0`, a repeated key)
//! is parsed to be written again. A flat object of plain members, the shape of nearly every
//! call's arguments, is checked and made compact in the same pass, so a log written with
//! `json.dumps`'s spacing reads about as fast as a compact one.
//!
//! It gives up (returns `None`) on anything it does not read exactly as the reference reader
//! would: a control character or a bad escape in a string, a number with an exponent or
//! more than [`MAX_DIGITS`] integer digits, nesting deeper than [`MAX_DEPTH`], any field the
//! rules of docs/agent-protocol.md refuse, or any JSON error. The reference reader then reads the line
//! and says what is wrong with it, so a line is accepted, refused and explained as the
//! reference reads it, only faster when it is plain. A key given twice keeps its last value.

use super::extra::{Extra, value_of};
use super::fields;
use super::keys::{KeyFilter, extra_bits};
use super::names::{self, step};
use super::{CompactString, Outcome, OutcomeError, Step, TrajectorySource};
use crate::compact_json::{CHECKED_KEYS, CompactJson, MAX_CHECKED_DEPTH, string_stop};
use serde_json::Value;
use std::borrow::Cow;

/// Deepest nesting read, counted from the line's object; deeper lines go to the reference
/// reader. No deeper than [`CompactJson`] checks text for being compact.
const MAX_DEPTH: usize = MAX_CHECKED_DEPTH;

/// How deep a field's value sits: inside the line's object.
const FIELD_DEPTH: usize = 1;

/// How deep a step's members sit: inside the line's object, the trajectory and the step.
const STEP_DEPTH: usize = 3;

/// Most integer digits read; longer integers may not fit 64 bits.
const MAX_DIGITS: usize = 18;

/// Reads `text` into `outcome`, whose lists keep their room, with where the value of each
/// of `extra_keys` is in `text` in `extras`; `None` when the line is not plain (see the
/// module docs), and `outcome` and `extras` must then not be used.
pub(super) fn scan_into<S: AsRef<str>>(
    text: &str,
    extra_keys: &[S],
    filter: KeyFilter,
    outcome: &mut Outcome,
    extras: &mut Vec<Option<Extra>>,
) -> Option<()> {
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
    // Every field is named, none left to `..`: a field added to the outcome does not build
    // until a line's value of it is reset here (and read below).
    let Outcome {
        status,
        answer,
        // Both set at the end of the line, from what it gave or the trajectory's length.
        tool_calls: _,
        tools_used,
        trajectory,
        usage,
        steps: _,
        error,
        trajectory_source,
        uncaptured_args,
    } = outcome;
    *status = None;
    *answer = None;
    *tools_used = None;
    trajectory.clear();
    usage.clear();
    *error = None;
    *trajectory_source = TrajectorySource::Reported;
    uncaptured_args.clear();
    let mut counts = Counts::default();
    let mut scanner = Scanner::new(text);
    scanner.expect(b'{')?;
    if !scanner.next_is(b'}') {
        loop {
            let key = scanner.string()?;
            scanner.expect(b':')?;
            scanner.skip_whitespace();
            let start = scanner.at;
            scanner.field(&key, outcome, &mut counts)?;
            let bits = extra_bits(extra_keys, filter, &key);
            if bits != 0 {
                for (i, extra) in extras.iter_mut().enumerate() {
                    if bits & (1 << i) != 0 {
                        *extra = Some(Extra::Text(start..scanner.at));
                    }
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
    let length = outcome.trajectory.len() as u64;
    outcome.tool_calls = counts.tool_calls.unwrap_or(length);
    outcome.steps = counts.steps.unwrap_or(length);
    Some(())
}

/// `tool_calls` and `steps` as given, when given: they default to the trajectory's length,
/// known only at the end of the line.
#[derive(Default)]
struct Counts {
    tool_calls: Option<u64>,
    steps: Option<u64>,
}

/// The text of one line and where reading has got to.
struct Scanner<'t> {
    text: &'t str,
    at: usize,
    /// Set on whitespace; reset before each value kept as compact text.
    spaced: bool,
    /// Set on anything serde_json writes differently than it is written, whitespace
    /// aside: an escape, a fraction, `-0`, an object with a repeated key or more keys than
    /// are checked. Reset before each value kept as compact text.
    rewritten: bool,
}

impl<'t> Scanner<'t> {
    fn new(text: &'t str) -> Self {
        Scanner {
            text,
            at: 0,
            spaced: false,
            rewritten: false,
        }
    }

    /// Reads the value of the line's field `key` into `outcome`; `tool_calls` and `steps`
    /// into `counts`.
    fn field(&mut self, key: &str, outcome: &mut Outcome, counts: &mut Counts) -> Option<()> {
        match key {
            names::TRAJECTORY => self.trajectory(&mut outcome.trajectory),
            names::USAGE => self.usage(&mut outcome.usage),
            names::STATUS => self.checked(fields::status).map(|v| outcome.status = v),
            names::ANSWER => self
                .checked(|v| Ok(fields::answer(v)))
                .map(|v| outcome.answer = v),
            names::TOOL_CALLS => self
                .checked(|v| fields::count(v, key))
                .map(|v| counts.tool_calls = v),
            names::STEPS => self
                .checked(|v| fields::count(v, key))
                .map(|v| counts.steps = v),
            names::TOOLS_USED => self
                .checked(fields::tools_used)
                .map(|v| outcome.tools_used = v),
            names::ERROR => self.checked(fields::agent_error).map(|v| outcome.error = v),
            _ => self.value(FIELD_DEPTH).map(drop),
        }
    }

    /// A field's value as `rule` takes it, `None` inside for `null`; `None` when the rule
    /// refuses it, for the reference reader to report.
    fn checked<T>(
        &mut self,
        rule: impl FnOnce(&Value) -> Result<T, OutcomeError>,
    ) -> Option<Option<T>> {
        match value_of(self.value(FIELD_DEPTH)?)? {
            Value::Null => Some(None),
            value => rule(&value).ok().map(Some),
        }
    }

    /// A trajectory: `null`, or a list of well-formed steps, read into `steps`.
    fn trajectory(&mut self, steps: &mut Vec<Step>) -> Option<()> {
        // A trajectory given twice keeps its last list.
        steps.clear();
        if self.text[self.at..].starts_with("null") {
            return self.word("null");
        }
        self.expect(b'[')?;
        if !self.next_is(b']') {
            loop {
                steps.push(self.step()?);
                if !self.next_is(b',') {
                    return self.expect(b']');
                }
            }
        }
        Some(())
    }

    /// One step: a pair `[tool, arg]`, or an object with a string `tool`.
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
                faults: None,
            });
        }
        self.expect(b'{')?;
        let (mut tool, mut args, mut error, mut result) = (None, None, None, None);
        if !self.next_is(b'}') {
            loop {
                let key = self.string()?;
                self.expect(b':')?;
                match &*key {
                    // Anything but a string is for the reference reader to report.
                    step::TOOL => tool = Some(self.string()?),
                    step::ARGS => args = Some(self.compact_value(STEP_DEPTH)?),
                    step::ERROR => error = Some(self.step_value()?),
                    step::RESULT => result = Some(self.step_value()?),
                    _ => {
                        self.value(STEP_DEPTH)?;
                    }
                }
                if !self.next_is(b',') {
                    self.expect(b'}')?;
                    break;
                }
            }
        }
        Some(Step {
            tool: CompactString::from(tool?),
            args: args.unwrap_or_default(),
            error: error.flatten().map(Box::new),
            result: result.flatten().map(Box::new),
            faults: None,
        })
    }

    /// A step member's value, `None` inside for `null`.
    fn step_value(&mut self) -> Option<Option<Value>> {
        let value = value_of(self.value(STEP_DEPTH)?)?;
        Some((!value.is_null()).then_some(value))
    }

    /// A `usage` field: `null`, one object or a list, read into `usage`.
    fn usage(&mut self, usage: &mut Vec<CompactJson>) -> Option<()> {
        // A usage given twice keeps its last value.
        usage.clear();
        match self.text.as_bytes().get(self.at)? {
            b'n' => self.word("null"),
            b'{' => {
                usage.push(self.compact_value(FIELD_DEPTH)?);
                Some(())
            }
            b'[' => {
                self.at += 1;
                if !self.next_is(b']') {
                    loop {
                        usage.push(self.compact_value(FIELD_DEPTH + 1)?);
                        if !self.next_is(b',') {
                            return self.expect(b']');
                        }
                    }
                }
                Some(())
            }
            // Anything else is an error, for the reference reader to report.
            _ => None,
        }
    }

    /// A value kept as the compact text serde_json writes for it.
    fn compact_value(&mut self, depth: usize) -> Option<CompactJson> {
        self.skip_whitespace();
        if depth < MAX_DEPTH
            && let Some(flat) = self.flat_object()
        {
            return Some(flat);
        }
        self.spaced = false;
        self.rewritten = false;
        let span = self.value(depth)?;
        if self.rewritten {
            CompactJson::from_json_text(span)
        } else if self.spaced {
            Some(CompactJson::from_compact_text(&without_whitespace(span)))
        } else {
            Some(CompactJson::from_compact_text(span))
        }
    }

    /// A flat object of plain members, `{"order_id": "A1", "n": 2}`, spaced or not, read and
    /// made compact in one pass: the shape nearly every logged call's arguments have. Its
    /// members are strings without escapes, integers and literals, no key repeated; for
    /// anything else (nesting, an escape, a fraction, a spaced object of more than
    /// [`FLAT_ROOM`] bytes once compact) it gives `None` without moving, and the value is
    /// read the general way.
    fn flat_object(&mut self) -> Option<CompactJson> {
        let start = self.at;
        let read = self.flat_members(start);
        if read.is_none() {
            self.at = start;
        }
        read
    }

    fn flat_members(&mut self, start: usize) -> Option<CompactJson> {
        let bytes = self.text.as_bytes();
        if bytes.get(start) != Some(&b'{') {
            return None;
        }
        self.at += 1;
        self.rewritten = false;
        let mut gathered = Gathered::starting_at(start);
        let mut keys: [&str; CHECKED_KEYS] = [""; CHECKED_KEYS];
        let mut count = 0;
        gathered.skip_whitespace(self)?;
        if bytes.get(self.at) == Some(&b'}') {
            self.at += 1;
        } else {
            loop {
                let key = self.string()?;
                let Cow::Borrowed(key) = key else {
                    return None;
                };
                if count == CHECKED_KEYS || keys[..count].contains(&key) {
                    return None;
                }
                keys[count] = key;
                count += 1;
                gathered.skip_whitespace(self)?;
                self.byte(b':')?;
                gathered.skip_whitespace(self)?;
                match *bytes.get(self.at)? {
                    b'"' => drop(self.string()?),
                    b't' => self.word("true")?,
                    b'f' => self.word("false")?,
                    b'n' => self.word("null")?,
                    b'{' | b'[' => return None,
                    _ => self.number()?,
                }
                if self.rewritten {
                    return None;
                }
                gathered.skip_whitespace(self)?;
                if self.byte(b'}').is_some() {
                    break;
                }
                self.byte(b',')?;
                gathered.skip_whitespace(self)?;
            }
        }
        gathered.compact(&self.text[..self.at])
    }

    /// Skips `byte`, which must come next, with no whitespace before it.
    fn byte(&mut self, byte: u8) -> Option<()> {
        let found = self.text.as_bytes().get(self.at) == Some(&byte);
        self.at += usize::from(found);
        found.then_some(())
    }

    /// Skips one JSON value, checking it, and gives its text.
    fn value(&mut self, depth: usize) -> Option<&'t str> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_whitespace();
        let start = self.at;
        match *self.text.as_bytes().get(self.at)? {
            b'"' => {
                self.string()?;
            }
            b'{' => self.object(depth)?,
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

    /// Skips an object, checking it; a key repeated among its first [`CHECKED_KEYS`], or
    /// more keys than that, is rewritten.
    fn object(&mut self, depth: usize) -> Option<()> {
        self.at += 1;
        if self.next_is(b'}') {
            return Some(());
        }
        let mut keys: [&str; CHECKED_KEYS] = [""; CHECKED_KEYS];
        let mut count = 0;
        loop {
            self.skip_whitespace();
            let key_start = self.at;
            self.string()?;
            let key = &self.text[key_start..self.at];
            if count == CHECKED_KEYS || keys[..count].contains(&key) {
                self.rewritten = true;
            } else {
                keys[count] = key;
                count += 1;
            }
            self.expect(b':')?;
            self.value(depth + 1)?;
            if !self.next_is(b',') {
                return self.expect(b'}');
            }
        }
    }

    /// A string: its text between the quotes when it has no escapes, else the string they
    /// stand for (read by serde_json, which checks them).
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
            self.rewritten = true;
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
            self.rewritten |= negative;
        }
        if bytes.get(self.at) == Some(&b'.') {
            self.rewritten = true;
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
        self.spaced = true;
        self.at += rest
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\n' | b'\t' | b'\r'))
            .count();
    }
}

/// Most bytes of a spaced flat object's compact text made in place; a longer one is read
/// the general way (compact text needs no room: it is taken as it stands).
const FLAT_ROOM: usize = 64;

/// A flat object's compact text as it is read: the runs of text between whitespace, copied
/// only once whitespace is met (compact text is taken as it stands).
struct Gathered {
    bytes: [u8; FLAT_ROOM],
    len: usize,
    /// Where the run not yet copied starts.
    run: usize,
    /// Where the object starts.
    start: usize,
}

impl Gathered {
    /// Nothing gathered yet of the object starting at `start`.
    fn starting_at(start: usize) -> Self {
        Gathered {
            bytes: [0; FLAT_ROOM],
            len: 0,
            run: start,
            start,
        }
    }

    /// Skips the whitespace at `scanner`'s place, keeping the run before it.
    #[inline]
    fn skip_whitespace(&mut self, scanner: &mut Scanner) -> Option<()> {
        let from = scanner.at;
        scanner.skip_whitespace();
        if scanner.at != from {
            self.push(&scanner.text.as_bytes()[self.run..from])?;
            self.run = scanner.at;
        }
        Some(())
    }

    fn push(&mut self, run: &[u8]) -> Option<()> {
        let end = self.len + run.len();
        self.bytes.get_mut(self.len..end)?.copy_from_slice(run);
        self.len = end;
        Some(())
    }

    /// The compact text of the object that ends `read`.
    fn compact(mut self, read: &str) -> Option<CompactJson> {
        if self.run == self.start {
            return Some(CompactJson::from_compact_text(&read[self.start..]));
        }
        self.push(&read.as_bytes()[self.run..])?;
        // Runs split at ASCII whitespace are whole characters.
        let text = std::str::from_utf8(&self.bytes[..self.len]).ok()?;
        Some(CompactJson::from_compact_text(text))
    }
}

/// Checked JSON text without escapes, without the whitespace between its tokens.
fn without_whitespace(span: &str) -> CompactString {
    let mut out = CompactString::with_capacity(span.len());
    let mut in_string = false;
    let mut from = 0;
    for (at, byte) in span.bytes().enumerate() {
        match byte {
            b'"' => in_string = !in_string,
            b' ' | b'\n' | b'\t' | b'\r' if !in_string => {
                out.push_str(&span[from..at]);
                from = at + 1;
            }
            _ => {}
        }
    }
    out.push_str(&span[from..]);
    out
}
