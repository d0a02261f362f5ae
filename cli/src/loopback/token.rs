//! The secret every request to a page server (`review`, `view`) carries: 128 bits from the
//! OS's random source, so that no other page in the browser and no other local user can read
//! the results or add labels.

use std::io::Read;

/// A fresh token, 32 hex digits.
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Compares in time independent of where the texts differ.
pub fn matches(given: &str, token: &str) -> bool {
    given.len() == token.len()
        && given
            .bytes()
            .zip(token.bytes())
            .fold(0u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_fresh_hex_and_match_only_themselves() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(matches(&a, &a));
        assert!(!matches(&b, &a));
        assert!(!matches(&a[..31], &a));
        assert!(!matches("", &a));
    }
}
