//! A file's bytes as UTF-8 text, or where they stop being UTF-8: the line and the byte offset
//! a message names, so that the bad byte can be found with any editor or `xxd`.

/// The first bytes of a file that are not UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not UTF-8 at byte {byte}")]
pub struct NotUtf8 {
    /// The 1-based line they are on.
    pub line: usize,
    /// Their offset from the start of the file, from 0.
    pub byte: usize,
}

/// `bytes` as text, or the place of the first bytes that are not UTF-8.
pub fn utf8_text(bytes: &[u8]) -> Result<&str, NotUtf8> {
    std::str::from_utf8(bytes).map_err(|e| {
        let byte = e.valid_up_to();
        NotUtf8 {
            line: 1 + memchr::memchr_iter(b'\n', &bytes[..byte]).count(),
            byte,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_bad_byte_is_placed_by_line_and_offset() {
        assert_eq!(utf8_text(b"a\nb"), Ok("a\nb"));
        assert_eq!(
            utf8_text(b"ok\nstill ok\nbad \xff here"),
            Err(NotUtf8 { line: 3, byte: 16 })
        );
        assert_eq!(utf8_text(b"\xc3"), Err(NotUtf8 { line: 1, byte: 0 }));
    }
}
