//! Compact JSON text written straight into a byte buffer, byte for byte what
//! `serde_json::to_writer` writes for the same values.
//!
//! Result lines are mostly short strings that need no escaping (tool names, check names,
//! ids); checking a whole string at once and copying it is several times faster than
//! serde's escape-table walk over each byte. A string that needs escaping gets the escapes
//! serde writes (every answer check's name quotes the answer); floats and numbers that are
//! not integers are handed to `serde_json` itself. Tests hold the two writers together,
//! over any string and number.

use rust_decimal::Decimal;
use serde_json::Value;

/// A JSON string: copied when it needs no escape, else escaped as `serde_json` escapes.
pub fn string(out: &mut Vec<u8>, text: &str) {
    out.reserve(text.len() + 2);
    out.push(b'"');
    if needs_no_escape(text.as_bytes()) {
        out.extend_from_slice(text.as_bytes());
    } else {
        escaped(out, text.as_bytes());
    }
    out.push(b'"');
}

/// The bytes of a string with the escapes `serde_json` writes: the short forms it has
/// (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`) and `\u00xx` for other control
/// characters. Runs of plain bytes are copied whole.
fn escaped(out: &mut Vec<u8>, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut plain_from = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        let short: &[u8] = match byte {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => &[],
            _ => continue,
        };
        out.extend_from_slice(&bytes[plain_from..at]);
        if short.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(byte >> 4)]);
            out.push(HEX[usize::from(byte & 0xf)]);
        } else {
            out.extend_from_slice(short);
        }
        plain_from = at + 1;
    }
    out.extend_from_slice(&bytes[plain_from..]);
}

/// Every byte `0x01` in a word, for testing eight bytes at once.
const ONES: u64 = u64::from_ne_bytes([1; 8]);
/// Every byte's top bit.
const TOPS: u64 = ONES * 0x80;

/// True when no byte is a control character, `"` or `\\`: the bytes JSON escapes.
/// Eight bytes are tested at a time: `(x - n) & !x` sets a byte's top bit when some byte of
/// `x` is below `n`, and a byte equal to `c` is a zero byte of `x ^ c`.
pub(crate) fn needs_no_escape(bytes: &[u8]) -> bool {
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        if word_needs_escape(u64::from_ne_bytes(word.try_into().expect("eight bytes"))) {
            return false;
        }
    }
    // The last few bytes are tested as one word too, padded with spaces (never escaped).
    let rest = words.remainder();
    let mut last = [b' '; 8];
    last[..rest.len()].copy_from_slice(rest);
    !word_needs_escape(u64::from_ne_bytes(last))
}

/// Whether any byte of a word is one that JSON escapes.
fn word_needs_escape(x: u64) -> bool {
    let quote = x ^ (ONES * u64::from(b'"'));
    let backslash = x ^ (ONES * u64::from(b'\\'));
    let control = x.wrapping_sub(ONES * 0x20) & !x;
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (control | quote | backslash) & TOPS != 0
}

/// A name that needs no escape (an enum's, fixed at compile time), between quotes.
pub fn name(out: &mut Vec<u8>, text: &'static str) {
    debug_assert!(needs_no_escape(text.as_bytes()), "{text:?} needs escaping");
    out.reserve(text.len() + 2);
    out.push(b'"');
    out.extend_from_slice(text.as_bytes());
    out.push(b'"');
}

/// A name, or `null`.
pub fn opt_name(out: &mut Vec<u8>, text: Option<&'static str>) {
    match text {
        Some(text) => name(out, text),
        None => out.extend_from_slice(b"null"),
    }
}

/// A string, or `null`.
pub fn opt_string(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        Some(text) => string(out, text),
        None => out.extend_from_slice(b"null"),
    }
}

/// A list of strings.
pub fn strings<S: AsRef<str>>(out: &mut Vec<u8>, items: &[S]) {
    out.push(b'[');
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        string(out, item.as_ref());
    }
    out.push(b']');
}

/// Appends `number` in decimal to a text: reasons and details are built on hot paths,
/// where `format!` costs several times the digits.
pub(crate) fn push_decimal(text: &mut String, number: u64) {
    let mut buffer = [0u8; 20];
    let digits = digits_of(number, &mut buffer);
    text.push_str(std::str::from_utf8(digits).expect("ASCII digits"));
}

/// An unsigned integer.
pub fn uint(out: &mut Vec<u8>, number: u64) {
    let mut buffer = [0u8; 20];
    out.extend_from_slice(digits_of(number, &mut buffer));
}

/// `true` or `false`.
pub fn boolean(out: &mut Vec<u8>, value: bool) {
    out.extend_from_slice(if value { b"true" } else { b"false" });
}

/// `true`, `false` or `null`.
pub fn opt_boolean(out: &mut Vec<u8>, value: Option<bool>) {
    match value {
        Some(value) => boolean(out, value),
        None => out.extend_from_slice(b"null"),
    }
}

/// Money as a string (`"0.054399"`), or `null`: how `rust_decimal::serde::str_option`
/// writes it.
pub fn opt_decimal(out: &mut Vec<u8>, value: Option<Decimal>) {
    match value {
        Some(value) => {
            out.push(b'"');
            decimal(out, value);
            out.push(b'"');
        }
        None => out.extend_from_slice(b"null"),
    }
}

/// A decimal as its `Display` writes it (every digit of its scale, `0.0500`), without
/// building a `String`: the digits of the mantissa with the point put in by hand.
fn decimal(out: &mut Vec<u8>, value: Decimal) {
    let scale = value.scale() as usize;
    // A negative value, negative zero (whose mantissa has lost its sign) or a mantissa
    // beyond 64 bits is not money as priced here: leave it to `Display`.
    let Some(mantissa) = u64::try_from(value.mantissa())
        .ok()
        .filter(|_| !value.is_sign_negative())
    else {
        out.extend_from_slice(value.to_string().as_bytes());
        return;
    };
    let mut buffer = [0u8; 20];
    let digits = digits_of(mantissa, &mut buffer);
    if digits.len() > scale {
        let (whole, fraction) = digits.split_at(digits.len() - scale);
        out.extend_from_slice(whole);
        if scale > 0 {
            out.push(b'.');
            out.extend_from_slice(fraction);
        }
    } else {
        // Money is mostly below a dollar: `0.`, the zeros the scale asks for, the digits.
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', scale - digits.len()));
        out.extend_from_slice(digits);
    }
}

/// The decimal digits of `number`, written at the end of `buffer`.
fn digits_of(mut number: u64, buffer: &mut [u8; 20]) -> &[u8] {
    let mut at = buffer.len();
    loop {
        at -= 1;
        buffer[at] = b'0' + (number % 10) as u8;
        number /= 10;
        if number == 0 {
            break;
        }
    }
    &buffer[at..]
}

/// Any JSON value, in its map's order.
pub fn value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => boolean(out, *b),
        Value::Number(n) => match n.as_u64() {
            Some(u) => uint(out, u),
            None => serde(out, n),
        },
        Value::String(s) => string(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                self::value(out, item);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                string(out, key);
                out.push(b':');
                self::value(out, item);
            }
            out.push(b'}');
        }
    }
}

/// Anything else, by `serde_json`.
pub fn serde<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, item: &T) {
    serde_json::to_writer(&mut *out, item).expect("writing JSON into memory cannot fail");
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ours(write: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        write(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn strings_and_numbers_match_serde() {
        for text in [
            "",
            "plain",
            "é ünï ☃",
            "quote \" back \\ slash",
            "nl\n\t\u{1}\u{7f}",
        ] {
            assert_eq!(
                ours(|o| string(o, text)),
                serde_json::to_string(text).unwrap()
            );
        }
        for byte in 0..=0x7fu8 {
            let text = format!("a{}b{}", char::from(byte), char::from(byte));
            assert_eq!(
                ours(|o| string(o, &text)),
                serde_json::to_string(&text).unwrap(),
                "{byte:#x}"
            );
        }
        for (mantissa, scale, text) in [
            (54399, 6, "0.054399"),
            (500, 4, "0.0500"),
            (0, 2, "0.00"),
            (0, 0, "0"),
            (12345, 2, "123.45"),
            (7, 0, "7"),
            (-25, 1, "-2.5"),
        ] {
            let value = Decimal::new(mantissa, scale);
            assert_eq!(ours(|o| decimal(o, value)), text);
            assert_eq!(value.to_string(), text);
        }
        assert_eq!(
            ours(|o| decimal(o, -Decimal::ZERO)),
            (-Decimal::ZERO).to_string()
        );
        for n in [0, 7, 10, 99, 1234567890, u64::MAX] {
            assert_eq!(ours(|o| uint(o, n)), n.to_string());
        }
        let v = serde_json::json!({"b": [1, -2, 2.5, 1e300, null, true], "a": {"x": "y\"z"}});
        assert_eq!(ours(|o| value(o, &v)), serde_json::to_string(&v).unwrap());
    }

    #[test]
    fn each_escaped_byte_is_found_at_every_position_of_a_word() {
        for byte in [
            0x00u8, 0x1f, b'"', b'\\', 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f,
        ] {
            // Every length up to two words and a part, so the padded last word is tested too.
            for length in 1..=17 {
                for at in 0..length {
                    let mut text = vec![b'a'; length];
                    text[at] = byte;
                    let text = String::from_utf8(text).unwrap();
                    let escaped = byte < 0x20 || byte == b'"' || byte == b'\\';
                    assert_eq!(
                        needs_no_escape(text.as_bytes()),
                        !escaped,
                        "{byte:#x} at {at} of {length}"
                    );
                }
            }
        }
    }

    proptest! {
        #[test]
        fn any_string_matches_serde(text in any::<String>()) {
            prop_assert_eq!(ours(|o| string(o, &text)), serde_json::to_string(&text).unwrap());
        }

        #[test]
        fn any_ascii_string_matches_serde(text in "[\\x00-\\x7f]{0,40}") {
            prop_assert_eq!(ours(|o| string(o, &text)), serde_json::to_string(&text).unwrap());
        }

        #[test]
        fn any_decimal_is_written_as_display_writes_it(
            mantissa in any::<i64>(),
            wide in any::<bool>(),
            scale in 0u32..=28,
        ) {
            let mantissa = if wide { i128::from(mantissa) << 30 } else { i128::from(mantissa) };
            let value = Decimal::from_i128_with_scale(mantissa, scale);
            prop_assert_eq!(
                ours(|o| opt_decimal(o, Some(value))),
                format!("\"{value}\"")
            );
        }

        #[test]
        fn any_integer_matches_serde(n in any::<u64>(), i in any::<i64>()) {
            prop_assert_eq!(ours(|o| uint(o, n)), n.to_string());
            let v = serde_json::json!(i);
            prop_assert_eq!(ours(|o| value(o, &v)), i.to_string());
        }
    }
}
