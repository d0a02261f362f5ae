//! JSON text made safe to sit inside a `<script type="application/json">` element.
//!
//! The HTML parser ends a script element at the first `</script`, and an agent's answer may
//! hold exactly that. JSON lets every character of a string be written as `\uXXXX`, so `<`,
//! `>` and `&` are written that way and the text can never close the element or open a
//! comment. U+2028 and U+2029 are escaped too, for readers that treat them as line ends.
//! Outside strings JSON has none of these characters, so escaping the whole text is exact.

/// Appends `json` to `out` with `<`, `>`, `&`, U+2028 and U+2029 escaped.
pub fn push_escaped(out: &mut Vec<u8>, json: &[u8]) {
    let mut start = 0;
    let mut i = 0;
    while i < json.len() {
        let replacement: Option<(&[u8], usize)> = match json[i] {
            b'<' => Some((b"\\u003c", 1)),
            b'>' => Some((b"\\u003e", 1)),
            b'&' => Some((b"\\u0026", 1)),
            // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8.
            0xE2 if json.get(i + 1) == Some(&0x80) && json.get(i + 2) == Some(&0xA8) => {
                Some((b"\\u2028", 3))
            }
            0xE2 if json.get(i + 1) == Some(&0x80) && json.get(i + 2) == Some(&0xA9) => {
                Some((b"\\u2029", 3))
            }
            _ => None,
        };
        match replacement {
            Some((text, width)) => {
                out.extend_from_slice(&json[start..i]);
                out.extend_from_slice(text);
                i += width;
                start = i;
            }
            None => i += 1,
        }
    }
    out.extend_from_slice(&json[start..]);
}

/// A value as escaped JSON text.
pub fn escaped_json(value: &impl serde::Serialize) -> Vec<u8> {
    let text = serde_json::to_vec(value).expect("report data always serialises");
    let mut out = Vec::with_capacity(text.len() + 64);
    push_escaped(&mut out, &text);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_line_separators_are_escaped_and_the_value_reads_back_the_same() {
        let value = serde_json::json!({
            "answer": "</script><script>alert(1)</script> & <!-- \u{2028}\u{2029} é",
            "<key>": [1, 2.5, null]
        });
        let text = String::from_utf8(escaped_json(&value)).unwrap();
        for raw in ["<", ">", "&", "\u{2028}", "\u{2029}"] {
            assert!(!text.contains(raw), "{raw:?} left in {text}");
        }
        assert!(text.contains(r"\u003c/script\u003e"));
        assert!(text.contains("é"));
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }
}
