//! API keys, kept out of every `Debug` output, error, log and recording.

use std::fmt;

/// An API key read from the environment. Its `Debug` form is redacted, and nothing in
/// this crate serialises it: only the HTTP clients read it, to set a header.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key given directly (tests, embedding programs).
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// Reads `variable`; `None` when it is unset or blank.
    pub fn from_env(variable: &str) -> Option<Self> {
        std::env::var(variable)
            .ok()
            .filter(|value| !value.trim().is_empty())
            .map(|value| ApiKey(value.trim().to_owned()))
    }

    /// The key itself, for the one header that carries it.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_key() {
        let key = ApiKey::new("sk-very-secret");
        assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
        assert_eq!(key.expose(), "sk-very-secret");
    }
}
