//! Trace and span ids: lowercase hex as OTLP JSON writes them, or base64 as the protobuf
//! JSON mapping (`MessageToDict`, `JsonFormat`) writes bytes; both become lowercase hex.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE};

/// Reads an id of `bytes` bytes (16 for a trace, 8 for a span). An empty text is no id.
pub(crate) fn read_id(text: &str, bytes: usize) -> Result<Option<String>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    if text.len() == bytes * 2 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(non_zero(text.to_ascii_lowercase()));
    }
    let decoded = STANDARD
        .decode(text)
        .or_else(|_| URL_SAFE.decode(text))
        .map_err(|_| format!("{text:?} is neither {} hex digits nor base64", bytes * 2))?;
    if decoded.len() != bytes {
        return Err(format!(
            "{text:?} is base64 of {} bytes, expected {bytes}",
            decoded.len()
        ));
    }
    Ok(non_zero(hex(&decoded)))
}

/// Lowercase hex of raw id bytes (the protobuf wire format).
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(DIGITS[usize::from(byte >> 4)] as char);
        out.push(DIGITS[usize::from(byte & 15)] as char);
    }
    out
}

/// An all-zero id means "none" in OTLP.
fn non_zero(hex: String) -> Option<String> {
    hex.bytes().any(|b| b != b'0').then_some(hex)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_base64_ids_read_the_same() {
        let hex_id = "5b8efff798038103d269b633813fc60c";
        assert_eq!(read_id(hex_id, 16).unwrap().as_deref(), Some(hex_id));
        assert_eq!(
            read_id("W47/95gDgQPSabYzgT/GDA==", 16).unwrap().as_deref(),
            Some(hex_id)
        );
        assert_eq!(
            read_id("5B8EFFF798038103D269B633813FC60C", 16)
                .unwrap()
                .as_deref(),
            Some(hex_id)
        );
        assert_eq!(read_id("", 8).unwrap(), None);
        assert_eq!(read_id("0000000000000000", 8).unwrap(), None);
        let error = read_id("not an id!", 8).unwrap_err();
        assert!(
            error.contains("neither 16 hex digits nor base64"),
            "{error}"
        );
        let error = read_id("AAAA", 8).unwrap_err();
        assert!(error.contains("base64 of 3 bytes, expected 8"), "{error}");
    }
}
