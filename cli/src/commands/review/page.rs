//! The page: a fixed HTML shell with the token, and its script and style served from the
//! same server (the policy allows only those). The script fetches the state and each
//! attempt as JSON and sets every piece of agent text with `textContent`: nothing from
//! the results or the sandboxes is ever parsed as markup.

/// The content security policy of every answer: the page runs its own script and style
/// from this server and talks only to it.
pub const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SHELL: &str = include_str!("assets/review.html");
pub const SCRIPT: &str = include_str!("assets/review.js");
pub const STYLE: &str = include_str!("assets/review.css");

/// The page for a session whose token is `token` (hex digits only, so safe in an
/// attribute).
pub fn html(token: &str) -> String {
    debug_assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    SHELL
        // A policy in a meta element cannot forbid framing (the header does).
        .replace(
            "{{POLICY}}",
            &POLICY.replace("; frame-ancestors 'none'", ""),
        )
        .replace("{{TOKEN}}", token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_never_parses_data_as_markup() {
        for forbidden in crate::html::FORBIDDEN_IN_SCRIPTS {
            assert!(!SCRIPT.contains(forbidden), "review.js uses {forbidden}");
            assert!(!STYLE.contains(forbidden), "review.css uses {forbidden}");
        }
        let page = html("00ff");
        assert!(!page.contains("{{"), "a placeholder is left in the page");
        assert!(page.contains("/review.js?token=00ff"));
    }
}
