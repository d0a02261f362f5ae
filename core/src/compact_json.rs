//! A JSON value kept as its compact text: what a trajectory step's `args` and an
//! outcome's usage objects are.
//!
//! Rules read one or two keys of a call's arguments and compare them, the ledger reads a
//! few keys of a usage object once, and the result line writes both back out; nothing
//! else looks inside. Building a map for each of the millions of calls in a large log (an
//! allocation for its entries, one for its index, a hashed key, a string per key and per
//! value) costs more than grading it. So the value is kept as the text `serde_json` would
//! write for it (`serde_json::to_string` of the parsed [`Value`], byte for byte), and
//! looked into only when asked. The plain-line reader keeps text that already is that (as a
//! program's JSON mostly is) as it was written; other text is transcoded.

use crate::result::json_text;
use crate::short_text::{same_bytes, same_text, starts_with_bytes};
use compact_str::CompactString;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;
use std::ops::Range;

/// A JSON value as its compact text, exactly as `serde_json::to_string` writes the
/// [`Value`] parsed from the same input (keys in the input's order, a repeated key
/// holding its last value at its first place).
///
/// The text is held inline when it is short (up to 24 bytes, as most call arguments are),
/// so a trajectory step costs no allocation for its arguments.
#[derive(Clone)]
pub struct CompactJson(CompactString);

/// An object key as compact text writes it, between its quotes: escaped once, at load,
/// for a caller that looks the same key up in many values (a rule, in every call of a log).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenKey(Vec<u8>);

impl WrittenKey {
    /// `key` escaped as a JSON string, without its quotes.
    #[must_use]
    pub fn new(key: &str) -> Self {
        let mut quoted = Vec::with_capacity(key.len() + 2);
        json_text::string(&mut quoted, key);
        WrittenKey(quoted[1..quoted.len() - 1].to_vec())
    }
}

impl CompactJson {
    /// Writes a list of values kept as their compact text, each as it is, as a JSON array.
    pub fn write_list(out: &mut Vec<u8>, items: &[CompactJson]) {
        out.push(b'[');
        for (index, item) in items.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            out.extend_from_slice(item.as_str().as_bytes());
        }
        out.push(b']');
    }

    /// JSON `null`: the args of a step that gave none.
    #[must_use]
    pub fn null() -> Self {
        CompactJson(CompactString::const_new("null"))
    }

    /// The text of `value`.
    #[must_use]
    pub fn from_value(value: &Value) -> Self {
        let mut out = Vec::new();
        json_text::value(&mut out, value);
        CompactJson(CompactString::from_utf8(out).expect("JSON text is UTF-8"))
    }

    /// The compact JSON text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The items of this list, each as its own compact text; `None` when it is no list.
    #[must_use]
    pub fn items(&self) -> Option<Vec<CompactJson>> {
        Some(
            items(&self.0)?
                .map(|item| CompactJson(item.into()))
                .collect(),
        )
    }

    /// The value, parsed from the text.
    #[must_use]
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.0).expect("a CompactJson holds valid JSON")
    }

    /// The compact text of the member `key` when this is an object holding it.
    ///
    /// The text is compact JSON this type wrote, without repeated keys, so the members
    /// are found by walking its bytes rather than by parsing it.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&str> {
        if json_text::needs_no_escape(key.as_bytes()) {
            self.member(key.as_bytes())
        } else {
            self.get_written(&WrittenKey::new(key))
        }
    }

    /// [`CompactJson::get`] with the key escaped already.
    #[must_use]
    pub fn get_written(&self, key: &WrittenKey) -> Option<&str> {
        self.member(&key.0)
    }

    /// The value of the member whose key is written `written` between its quotes.
    fn member(&self, written: &[u8]) -> Option<&str> {
        // Most arguments hold the compared key first (`{"order_id":"A1"}`): found there
        // without walking the key's string first.
        let bytes = self.0.as_bytes();
        let value_start = written.len() + 4;
        if bytes.len() > value_start
            && bytes.starts_with(b"{\"")
            && starts_with_bytes(&bytes[2..], written)
            && bytes[written.len() + 2..].starts_with(b"\":")
        {
            let end = value_end(bytes, value_start);
            return self.0.get(value_start..end);
        }
        members(&self.0)?
            .find(|(name, _)| same_bytes(name.as_bytes(), written))
            .map(|(_, value)| value)
    }

    /// Whether two texts of this kind are the same value: equal JSON with object key order
    /// ignored, numbers compared as parsed (`2.5` and `2.50` are the same, `1` and `1.0`
    /// are not). Equal texts always are; texts without objects are canonical (written from
    /// the parsed value), so only objects need to be parsed again to decide. Floats parse
    /// back to the same bits because serde_json's `float_roundtrip` is on.
    #[must_use]
    pub(crate) fn same(a: &str, b: &str) -> bool {
        if same_text(a, b) {
            return true;
        }
        if !a.contains('{') || !b.contains('{') {
            return false;
        }
        let parse = |text: &str| -> Value {
            serde_json::from_str(text).expect("a CompactJson holds valid JSON")
        };
        same_value(&parse(a), &parse(b))
    }
}

/// Whether two values are the same argument: equal JSON with object key order ignored,
/// exactly when their texts with keys sorted are equal. So an integer never equals a float
/// (`1` and `1.0` differ), and `0.0` and `-0.0` differ.
pub(crate) fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, x)| b.get(key).is_some_and(|y| same_value(x, y)))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y))
        }
        (Value::Number(a), Value::Number(b)) => match (a.as_f64(), a.is_f64(), b.is_f64()) {
            // Floats print the same exactly when their bits are equal.
            (Some(x), true, true) => b.as_f64().is_some_and(|y| x.to_bits() == y.to_bits()),
            // An integer never prints like a float.
            (_, false, false) => a == b,
            _ => false,
        },
        (a, b) => a == b,
    }
}

impl Default for CompactJson {
    fn default() -> Self {
        CompactJson::null()
    }
}

impl From<Value> for CompactJson {
    fn from(value: Value) -> Self {
        CompactJson::from_value(&value)
    }
}

/// Equal as JSON values are (object key order ignored), as the [`Value`]s were before.
impl PartialEq for CompactJson {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0 || self.to_value() == other.to_value()
    }
}

impl Eq for CompactJson {}

impl PartialEq<Value> for CompactJson {
    fn eq(&self, other: &Value) -> bool {
        self.to_value() == *other
    }
}

impl fmt::Debug for CompactJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for CompactJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for CompactJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for CompactJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut out = Vec::with_capacity(32);
        let mut rebuild = false;
        Transcode {
            out: &mut out,
            rebuild: &mut rebuild,
        }
        .deserialize(deserializer)?;
        let text = CompactString::from_utf8(out).expect("JSON text is UTF-8");
        if rebuild {
            // A key repeated in an object: let `Value` decide which value stays where.
            let value: Value = serde_json::from_str(&text).map_err(serde::de::Error::custom)?;
            return Ok(CompactJson::from_value(&value));
        }
        Ok(CompactJson(text))
    }
}

impl CompactJson {
    /// The compact text of valid JSON `text`: kept as it is when it already is compact
    /// ([`is_compact`]), else transcoded. `None` when the text is not valid JSON after all
    /// (a number out of range).
    pub(crate) fn from_json_text(text: &str) -> Option<CompactJson> {
        if is_compact(text) {
            return Some(CompactJson(text.into()));
        }
        serde_json::from_str(text).ok()
    }

    /// Text a reader found to be compact as [`is_compact`] defines it (nesting included),
    /// kept as it is.
    pub(crate) fn from_compact_text(text: &str) -> CompactJson {
        debug_assert!(is_compact(text), "not compact: {text}");
        CompactJson(text.into())
    }
}

/// Objects and lists nested deeper than this are left to the transcoder, which has
/// serde_json's own limit.
pub(crate) const MAX_CHECKED_DEPTH: usize = 32;

/// Whether valid JSON `text` already is the compact text `serde_json` writes for its
/// value: no whitespace, no escapes, integers of at most 18 digits other than `-0` (no
/// fraction or exponent, which serde_json may write differently), no object with a
/// repeated key or more keys than are checked cheaply, and no nesting deeper than
/// [`MAX_CHECKED_DEPTH`]. `false` only sends the text the slow way.
fn is_compact(text: &str) -> bool {
    compact_end(text.as_bytes(), 0, 0) == Some(text.len())
}

/// One past the end of the value at `at` when it is compact text (see [`is_compact`]).
fn compact_end(text: &[u8], at: usize, depth: usize) -> Option<usize> {
    match *text.get(at)? {
        b'"' => plain_string_end(text, at),
        b'{' if depth < MAX_CHECKED_DEPTH => {
            let mut keys: [&[u8]; CHECKED_KEYS] = [&[]; CHECKED_KEYS];
            let mut count = 0;
            let mut at = at + 1;
            if text.get(at) == Some(&b'}') {
                return Some(at + 1);
            }
            loop {
                let key_end = plain_string_end(text, at)?;
                let key = &text[at..key_end];
                if count == CHECKED_KEYS || keys[..count].contains(&key) {
                    return None;
                }
                keys[count] = key;
                count += 1;
                if text.get(key_end) != Some(&b':') {
                    return None;
                }
                at = compact_end(text, key_end + 1, depth + 1)?;
                match text.get(at) {
                    Some(b',') => at += 1,
                    Some(b'}') => return Some(at + 1),
                    _ => return None,
                }
            }
        }
        b'[' if depth < MAX_CHECKED_DEPTH => {
            let mut at = at + 1;
            if text.get(at) == Some(&b']') {
                return Some(at + 1);
            }
            loop {
                at = compact_end(text, at, depth + 1)?;
                match text.get(at) {
                    Some(b',') => at += 1,
                    Some(b']') => return Some(at + 1),
                    _ => return None,
                }
            }
        }
        b't' | b'f' | b'n' => ["true", "false", "null"]
            .iter()
            .find(|word| text[at..].starts_with(word.as_bytes()))
            .map(|word| at + word.len()),
        b'-' | b'0'..=b'9' => {
            let digits_start = at + usize::from(text[at] == b'-');
            let digits = text[digits_start..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let end = digits_start + digits;
            let negative_zero = digits_start > at && text.get(digits_start) == Some(&b'0');
            let fraction = matches!(text.get(end), Some(b'.' | b'e' | b'E'));
            (digits > 0 && digits <= 18 && !negative_zero && !fraction).then_some(end)
        }
        _ => None,
    }
}

/// One past the closing quote of the string at `at` when it has no escapes.
fn plain_string_end(text: &[u8], at: usize) -> Option<usize> {
    if text.get(at) != Some(&b'"') {
        return None;
    }
    let length = text[at + 1..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\')?;
    (text[at + 1 + length] == b'"').then_some(at + length + 2)
}

/// Writes the value it reads as compact JSON, the way `Value` would print it.
struct Transcode<'o> {
    out: &'o mut Vec<u8>,
    /// Set when an object repeats a key, or has too many keys to check cheaply.
    rebuild: &'o mut bool,
}

/// Keys of one object checked for repeats without allocating; an object with more is
/// rebuilt, and not taken as compact as it was written.
pub(crate) const CHECKED_KEYS: usize = 8;

impl<'de> DeserializeSeed<'de> for Transcode<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Transcode<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        json_text::boolean(self.out, v);
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        json_text::value(self.out, &Value::from(v));
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        json_text::uint(self.out, v);
        Ok(())
    }

    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        // As `Value` does: a float JSON cannot hold becomes null.
        let value = serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number);
        json_text::value(self.out, &value);
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        json_text::string(self.out, v);
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn visit_none<E>(self) -> Result<(), E> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.out.push(b'[');
        let mut first = true;
        loop {
            let at = self.out.len();
            if !first {
                self.out.push(b',');
            }
            let element = Transcode {
                out: &mut *self.out,
                rebuild: &mut *self.rebuild,
            };
            if seq.next_element_seed(element)?.is_none() {
                self.out.truncate(at);
                break;
            }
            first = false;
        }
        self.out.push(b']');
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.out.push(b'{');
        let mut keys: [Range<usize>; CHECKED_KEYS] = Default::default();
        let mut count = 0;
        loop {
            let at = self.out.len();
            if count > 0 {
                self.out.push(b',');
            }
            let key_start = self.out.len();
            if map.next_key_seed(KeyText(&mut *self.out))?.is_none() {
                self.out.truncate(at);
                break;
            }
            let key = key_start..self.out.len();
            if count < CHECKED_KEYS {
                let text = &self.out[key.clone()];
                if keys[..count].iter().any(|k| self.out[k.clone()] == *text) {
                    *self.rebuild = true;
                }
                keys[count] = key;
            } else {
                *self.rebuild = true;
            }
            count += 1;
            self.out.push(b':');
            map.next_value_seed(Transcode {
                out: &mut *self.out,
                rebuild: &mut *self.rebuild,
            })?;
        }
        self.out.push(b'}');
        Ok(())
    }
}

/// Writes an object key as a JSON string.
struct KeyText<'o>(&'o mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for KeyText<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyText<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        json_text::string(self.0, v);
        Ok(())
    }
}

/// The members of the object in `text`, in order, as each key's text between its quotes
/// (escapes as written) and the value's compact text; `None` when `text` is not an object.
///
/// `text` must be compact JSON as a [`CompactJson`] holds it, or a value inside one: such
/// text has no whitespace and no repeated keys, so the members are found by walking its
/// bytes rather than by parsing it.
#[must_use]
pub fn members(text: &str) -> Option<Members<'_>> {
    (text.as_bytes().first() == Some(&b'{')).then_some(Members { text, at: 1 })
}

/// The members of a compact JSON object: see [`members`].
#[derive(Debug, Clone)]
pub struct Members<'a> {
    text: &'a str,
    /// Where the next key's opening quote is.
    at: usize,
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.text.as_bytes();
        if bytes.get(self.at) != Some(&b'"') {
            return None;
        }
        let key_end = value_end(bytes, self.at);
        let value_start = key_end + 1; // after the colon
        let end = value_end(bytes, value_start);
        // Text that breaks the rule (not compact) ends the walk rather than a slice.
        let member = (
            self.text.get(self.at + 1..key_end.checked_sub(1)?)?,
            self.text.get(value_start..end)?,
        );
        self.at = end + 1; // after the comma or the closing brace
        Some(member)
    }
}

/// The items of the list in `text`, compact JSON as for [`members`], each as its compact
/// text; `None` when `text` is not a list.
#[must_use]
pub fn items(text: &str) -> Option<Items<'_>> {
    (text.as_bytes().first() == Some(&b'[')).then_some(Items { text, at: 1 })
}

/// The items of a compact JSON list: see [`items`].
#[derive(Debug, Clone)]
pub struct Items<'a> {
    text: &'a str,
    /// Where the next item starts.
    at: usize,
}

impl<'a> Iterator for Items<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        if matches!(bytes.get(self.at), None | Some(b']')) {
            return None;
        }
        let end = value_end(bytes, self.at);
        let item = self.text.get(self.at..end)?;
        self.at = end + 1; // after the comma or the closing bracket
        Some(item)
    }
}

/// Where the value that starts at `start` of compact JSON text ends (one past its last
/// byte): strings end at their closing quote, objects and lists at their closing bracket,
/// other values at the next `,`, `}` or `]`.
fn value_end(text: &[u8], start: usize) -> usize {
    match text.get(start) {
        Some(b'"') => string_end(text, start + 1),
        Some(b'{' | b'[') => nested_end(text, start + 1),
        _ => text
            .get(start..)
            .and_then(|rest| rest.iter().position(|&b| matches!(b, b',' | b'}' | b']')))
            .map_or(text.len(), |length| start + length),
    }
}

/// One past the closing quote of the string whose text starts at `at`. The text is
/// compact JSON, so only a quote or a backslash stops the string.
fn string_end(text: &[u8], mut at: usize) -> usize {
    while let Some(rest) = text.get(at..) {
        // Most strings of call arguments are a few bytes: a plain loop finds their end
        // sooner than a vector search gets started.
        let found = if rest.len() < 32 {
            rest.iter().position(|&b| b == b'"' || b == b'\\')
        } else {
            memchr::memchr2(b'"', b'\\', rest)
        };
        let Some(stop) = found.map(|found| at + found) else {
            break;
        };
        match text[stop] {
            b'"' => return stop + 1,
            _ => at = stop + 2, // the backslash and the byte it escapes
        }
    }
    text.len()
}

/// Where the first byte at or after `at` is that a string cannot hold as it is: a quote,
/// a backslash or a control character.
///
/// Strings are most of a log line, so this looks at eight bytes at a time: a byte of a
/// word is zero exactly where the word equals the byte looked for, and
/// `(w - 0x01…) & !w & 0x80…` has its lowest set high bit in the first zero byte (bits
/// above it may be wrong, so only the lowest is used). `w - 0x20…` does the same for
/// bytes below 0x20.
pub(crate) fn string_stop(bytes: &[u8], mut at: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_bytes = |w: u64| w.wrapping_sub(ONES) & !w & HIGHS;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let stops = zero_bytes(word ^ (ONES * u64::from(b'"')))
            | zero_bytes(word ^ (ONES * u64::from(b'\\')))
            | (word.wrapping_sub(ONES * 0x20) & !word & HIGHS);
        if stops != 0 {
            return Some(at + (stops.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    bytes
        .get(at..)?
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|length| at + length)
}

/// One past the bracket that closes the object or list whose members start at `at`.
fn nested_end(text: &[u8], mut at: usize) -> usize {
    let mut depth = 1usize;
    while let Some(&byte) = text.get(at) {
        at += 1;
        match byte {
            b'"' => at = string_end(text, at),
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return at;
                }
            }
            _ => {}
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn a_key_is_found_escaped_or_not_first_or_later() {
        let args = CompactJson::from_value(&json!({"a\"b": "x\\\"y", "order_id": "A1", "n": 2}));
        for (key, value) in [
            ("a\"b", Some(r#""x\\\"y""#)),
            ("order_id", Some(r#""A1""#)),
            ("n", Some("2")),
            ("missing", None),
        ] {
            assert_eq!(args.get(key), value, "{key}");
            assert_eq!(args.get_written(&WrittenKey::new(key)), value, "{key}");
        }
        let long = "z".repeat(40) + "\\\"";
        let args = CompactJson::from_value(&json!({"k": long, "v": 1}));
        assert_eq!(
            args.get("v"),
            Some("1"),
            "a long string with escapes is walked"
        );
    }

    #[test]
    fn a_string_stops_at_the_first_quote_backslash_or_control_byte() {
        for text in ["", "abc", "abcdefghijklmnop", "\u{e9}\u{1f600}xyzxyzxyzxyz"] {
            for stop in ['"', '\\', '\n', '\u{0}', '\u{1f}'] {
                for at in 0..=text.len() {
                    if !text.is_char_boundary(at) {
                        continue;
                    }
                    let line = format!("{}{stop}{}\"", &text[..at], &text[at..]);
                    for from in 0..=at {
                        assert_eq!(
                            string_stop(line.as_bytes(), from),
                            Some(at),
                            "{line:?} {from}"
                        );
                    }
                }
            }
            assert_eq!(string_stop(text.as_bytes(), 0), None);
        }
        // Bytes just above the limits do not stop a string.
        assert_eq!(string_stop(b" !#[]~\x7f\"", 0), Some(7));
    }

    /// The text as `serde_json` writes the parsed `Value`.
    fn through_value(text: &str) -> String {
        serde_json::to_string(&serde_json::from_str::<Value>(text).unwrap()).unwrap()
    }

    fn read(text: &str) -> CompactJson {
        serde_json::from_str(text).unwrap()
    }

    /// Read by [`CompactJson::from_json_text`], which keeps text that is already compact.
    fn read_raw(text: &str) -> CompactJson {
        CompactJson::from_json_text(text).unwrap()
    }

    #[test]
    fn reading_writes_what_serde_json_writes_for_the_value() {
        for text in [
            "null",
            "true",
            "-0",
            "0",
            "-12",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775809",
            "1.0",
            "1e400",
            "1E2",
            "-0.0",
            "2.50",
            "0.1",
            r#""a\u0041\n\"\\\/\u00e9\ud83d\ude00""#,
            "[]",
            "{}",
            r#" { "b" : [ 1 , { } , [ ] ] , "a" : "x" } "#,
            r#"{"a": 1, "b": 2, "a": 3}"#,
            r#"{"a": {"k": 1, "k": {"z": 2}}, "b": [{"x": 1, "x": 2}]}"#,
            r#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k0":9}"#,
            r#"{"\u0061": 1, "a": 2}"#,
        ] {
            if text == "1e400" {
                assert!(serde_json::from_str::<CompactJson>(text).is_err());
                assert_eq!(CompactJson::from_json_text(text), None);
                continue;
            }
            assert_eq!(read(text).as_str(), through_value(text), "{text}");
            assert_eq!(read_raw(text).as_str(), through_value(text), "{text}");
        }
    }

    #[test]
    fn reading_a_parsed_value_writes_the_same_text() {
        let value = json!({"order_id": "A1", "n": [1, -2, 2.5, null, true], "o": {"x": "y"}});
        let read = CompactJson::deserialize(&value).unwrap();
        assert_eq!(read.as_str(), serde_json::to_string(&value).unwrap());
        assert_eq!(read, CompactJson::from_value(&value));
        assert_eq!(read, value);
    }

    #[test]
    fn get_finds_members_as_compact_text() {
        let args = read(r#"{"order_id": "A1", "n": {"x": [1, 2]}, "e": "\"q\"", "z": null}"#);
        assert_eq!(args.get("order_id"), Some(r#""A1""#));
        assert_eq!(args.get("n"), Some(r#"{"x":[1,2]}"#));
        assert_eq!(args.get("e"), Some(r#""\"q\"""#));
        assert_eq!(args.get("z"), Some("null"));
        assert_eq!(args.get("missing"), None);
        assert_eq!(read(r#""order_id""#).get("order_id"), None);
        assert_eq!(read(r#"["order_id"]"#).get("order_id"), None);
        let escaped_key = read(r#"{"a\"b": 1}"#);
        assert_eq!(escaped_key.get("a\"b"), Some("1"));
    }

    #[test]
    fn same_ignores_key_order_and_nothing_else() {
        let same = |a: &str, b: &str| CompactJson::same(read(a).as_str(), read(b).as_str());
        assert!(same(
            r#"{"a": 1, "b": [2, {"c": 3, "d": 4}]}"#,
            r#"{"b": [2, {"d": 4, "c": 3}], "a": 1}"#
        ));
        assert!(!same(r#"{"a": 1}"#, r#"{"a": 1.0}"#));
        assert!(!same("0.0", "-0.0"));
        assert!(same("2.50", "2.5"));
        assert!(!same(r#"[1, 2]"#, r#"[2, 1]"#));
        assert!(!same(r#"{"a": 1}"#, r#"{"a": 1, "b": 2}"#));
        assert!(same(r#""{x""#, r#""{x""#));
        assert!(!same(r#""{x""#, r#"{"x": 1}"#));
    }

    /// JSON text with object keys sorted at every level: two argument values are the same
    /// exactly when these texts are equal (what [`same_value`] decides without them).
    fn canonical(value: &Value) -> String {
        let mut out = String::new();
        write_canonical(value, &mut out);
        out
    }

    fn write_canonical(value: &Value, out: &mut String) {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                out.push('{');
                for (position, (key, item)) in entries.into_iter().enumerate() {
                    if position > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push(':');
                    write_canonical(item, out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (position, item) in items.iter().enumerate() {
                    if position > 0 {
                        out.push(',');
                    }
                    write_canonical(item, out);
                }
                out.push(']');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
    }

    #[test]
    fn canonical_text_sorts_keys_at_every_level() {
        assert_eq!(
            canonical(&json!({"b": [{"d": 1, "c": "x\"y"}], "a": null})),
            r#"{"a":null,"b":[{"c":"x\"y","d":1}]}"#
        );
        // Numbers keep their JSON form: 1 and 1.0 are different arguments.
        assert_ne!(canonical(&json!(1)), canonical(&json!(1.0)));
    }

    #[test]
    fn same_value_agrees_with_canonical_text() {
        let values = [
            json!(null),
            json!(true),
            json!(1),
            json!(1.0),
            json!(-1),
            json!(0.0),
            json!(-0.0),
            json!(u64::MAX),
            json!("A1"),
            json!("a\"b"),
            json!([1, "a"]),
            json!(["a", 1]),
            json!([1]),
            json!({"order_id": "A1"}),
            json!({"order_id": "A1", "amount": 5}),
            json!({"amount": 5, "order_id": "A1"}),
            json!({"amount": 5.0, "order_id": "A1"}),
            json!({"a": {"x": 1, "y": [2]}, "b": null}),
            json!({"b": null, "a": {"y": [2], "x": 1}}),
            json!({"a": {"x": 1}, "b": null}),
        ];
        for a in &values {
            for b in &values {
                assert_eq!(same_value(a, b), canonical(a) == canonical(b), "{a} vs {b}");
                let (x, y) = (CompactJson::from_value(a), CompactJson::from_value(b));
                assert_eq!(CompactJson::same(x.as_str(), y.as_str()), same_value(a, b));
            }
        }
    }

    /// Any JSON value, with short keys (some needing escapes) that may repeat across
    /// objects, and objects large enough to pass the keys checked for repeats.
    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            "[a-c\"\\\\\n\u{e9}{ ]{0,4}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 40, 12, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((key(), inner), 0..12)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    /// A short object key, sometimes one that JSON escapes.
    fn key() -> impl Strategy<Value = String> {
        "[a-c\"\\\\\t]{1,2}"
    }

    /// The same value with every object's keys in reverse order.
    fn reordered(value: &Value) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .rev()
                    .map(|(k, v)| (k.clone(), reordered(v)))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(reordered).collect()),
            other => other.clone(),
        }
    }

    proptest! {
        #[test]
        fn text_is_what_serde_json_writes(value in any_json()) {
            let written = serde_json::to_string(&value).unwrap();
            prop_assert_eq!(read(&written).as_str().to_owned(), written.clone());
            prop_assert_eq!(read_raw(&written).as_str().to_owned(), written.clone());
            prop_assert_eq!(CompactJson::from_value(&value).as_str().to_owned(), written.clone());
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            prop_assert_eq!(read_raw(&pretty).as_str().to_owned(), written.clone());
            prop_assert_eq!(read(&pretty).as_str().to_owned(), written);
        }

        #[test]
        fn same_agrees_with_comparing_values(a in any_json(), b in any_json()) {
            let (text_a, text_b) = (CompactJson::from_value(&a), CompactJson::from_value(&b));
            let same = CompactJson::same(text_a.as_str(), text_b.as_str());
            prop_assert_eq!(same, same_value(&a, &b));
            prop_assert_eq!(same, canonical(&a) == canonical(&b));
            let turned = CompactJson::from_value(&reordered(&a));
            prop_assert!(CompactJson::same(text_a.as_str(), turned.as_str()));
        }

        #[test]
        fn objects_with_repeated_keys_read_as_value_reads_them(
            entries in prop::collection::vec((key(), any_json()), 0..12),
        ) {
            // Written by hand, so keys may repeat as they can in a log line: spaced, then
            // compact but for the repeats.
            for (colon, comma) in [(": ", ", "), (":", ",")] {
                let members: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{}{colon}{}", Value::from(k.as_str()), v))
                    .collect();
                let text = format!("{{{}}}", members.join(comma));
                prop_assert_eq!(read(&text).as_str().to_owned(), through_value(&text));
                prop_assert_eq!(read_raw(&text).as_str().to_owned(), through_value(&text));
            }
        }

        #[test]
        fn get_finds_what_the_parsed_object_holds(
            entries in prop::collection::vec((key(), any_json()), 0..6),
            asked in key(),
        ) {
            let object: serde_json::Map<String, Value> = entries.into_iter().collect();
            let text = CompactJson::from_value(&Value::Object(object.clone()));
            for key in object.keys().chain([&asked]) {
                let expected = object.get(key).map(|v| serde_json::to_string(v).unwrap());
                prop_assert_eq!(text.get(key).map(str::to_owned), expected, "{} in {}", key, text.as_str());
            }
        }

        #[test]
        fn walking_text_that_is_not_compact_ends_without_a_panic(text in "[{\\[\\]}\",:a1 ]{0,12}") {
            let _ = members(&text).map(Iterator::count);
            let _ = items(&text).map(Iterator::count);
        }

        #[test]
        fn items_are_the_lists_items(value in any_json()) {
            let text = CompactJson::from_value(&value);
            let expected = value
                .as_array()
                .map(|items| items.iter().map(|i| serde_json::to_string(i).unwrap()).collect::<Vec<_>>());
            let items = text.items().map(|items| items.iter().map(|i| i.as_str().to_owned()).collect());
            prop_assert_eq!(items, expected);
        }

        #[test]
        fn get_agrees_with_the_parsed_object(value in any_json(), key in key()) {
            let text = CompactJson::from_value(&value);
            let expected = value.get(&key).map(|member| serde_json::to_string(member).unwrap());
            prop_assert_eq!(text.get(&key).map(str::to_owned), expected);
        }
    }
}
