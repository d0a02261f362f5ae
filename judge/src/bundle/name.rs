//! File names as the bundle's text. A name that is not UTF-8 keeps each byte that is not
//! as `\xFF`, never as U+FFFD: two such names stay two entries, each read from its own file.

use std::ffi::OsStr;
use std::fmt::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A name as text: UTF-8 as it is, every other byte as `\xHH`, and a backslash doubled
/// (`\\`) so that no name reads as another name's escape.
pub(crate) fn name_text(name: &OsStr) -> String {
    let mut text = String::with_capacity(name.len());
    for chunk in name.as_bytes().utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                text.push_str("\\\\");
            } else {
                text.push(c);
            }
        }
        for byte in chunk.invalid() {
            // Writing to a String cannot fail.
            let _ = write!(text, "\\x{byte:02X}");
        }
    }
    text
}

/// A relative path as text, `/`-separated, each part as [`name_text`] writes it.
pub(crate) fn path_text(path: &Path) -> String {
    path.components()
        .map(|part| name_text(part.as_os_str()))
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_are_not_utf8_stay_apart() {
        let name = |bytes: &[u8]| name_text(OsStr::from_bytes(bytes));
        assert_eq!(name(b"a\xFF.txt"), "a\\xFF.txt");
        assert_eq!(name(b"a\xFE.txt"), "a\\xFE.txt");
        assert_eq!(name("é.txt".as_bytes()), "é.txt");
        // A name that spells an escape is not the name with that byte.
        assert_eq!(name(b"a\\xFF.txt"), "a\\\\xFF.txt");
        assert_eq!(
            path_text(Path::new(OsStr::from_bytes(b"logs/\xC3(/r.log"))),
            "logs/\\xC3(/r.log"
        );
    }
}
