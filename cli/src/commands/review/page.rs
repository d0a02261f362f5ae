//! The page: a fixed HTML shell with the token, and its script and style served from the
//! same server (the policy allows only those). The script fetches the state and each
//! attempt as JSON and sets every piece of agent text with `textContent`: nothing from
//! the results or the sandboxes is ever parsed as markup.

const SHELL: &str = include_str!("assets/review.html");
pub const SCRIPT: &str = include_str!("assets/review.js");
pub const STYLE: &str = include_str!("assets/review.css");

/// The page for a session whose token is `token`.
pub fn html(token: &str) -> String {
    crate::loopback::page_server::shell(SHELL, token)
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
