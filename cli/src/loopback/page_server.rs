//! What every page server on loopback (`proctor review`, `proctor view`) checks and adds,
//! written once: the `Host` is this server's (a page of another site cannot rebind a name to
//! it), the token is given, a browser request comes from the page itself, and every answer
//! carries a strict policy and no caching. Routes are each command's own.

use super::token;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use serde_json::{Value, json};

/// The content security policy of a page server's own page: its script and style come from
/// this server, and it talks only to it.
pub const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// One server's address and secret.
#[derive(Debug, Clone)]
pub struct Gate {
    pub token: String,
    pub port: u16,
    /// The command that printed the address, named when the token is missing.
    pub command: &'static str,
}

/// Which requests may come from a browser page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fetch {
    /// The page itself, opened from the address bar or a link of the page.
    Navigation,
    /// What the page's script asks (its data, its script and style): same-origin only.
    SameOrigin,
}

impl Gate {
    /// The refusal for a request that is not this server's, not holding the token, or sent by
    /// another site; `None` when it may be answered.
    pub fn refuse(
        &self,
        request: &Request<Incoming>,
        fetch: Fetch,
    ) -> Option<Response<Full<Bytes>>> {
        if !self.host_is_ours(request) {
            return Some(refusal(
                StatusCode::FORBIDDEN,
                "this server answers only to its own address",
            ));
        }
        let query = request.uri().query().unwrap_or_default();
        let given = request
            .headers()
            .get("x-proctor-token")
            .and_then(|v| v.to_str().ok())
            .or_else(|| parameter(query, "token"));
        if !given.is_some_and(|t| token::matches(t, &self.token)) {
            return Some(refusal(
                StatusCode::FORBIDDEN,
                &format!(
                    "the token is missing or wrong: open the address proctor {} printed",
                    self.command
                ),
            ));
        }
        self.cross_site(request, fetch)
            .map(|why| refusal(StatusCode::FORBIDDEN, why))
    }

    /// Why a request is refused as cross-site, if it is. Browsers send `Sec-Fetch-Site` with
    /// every request and `Origin` with every POST; clients that send neither (curl, tests)
    /// hold the token and are not a browser page of another site. A navigation typed into
    /// the address bar says `none`.
    pub fn cross_site(&self, request: &Request<Incoming>, fetch: Fetch) -> Option<&'static str> {
        let headers = request.headers();
        if let Some(site) = headers.get("sec-fetch-site") {
            let allowed = site == "same-origin" || (fetch == Fetch::Navigation && site == "none");
            if !allowed {
                return Some("cross-site requests are refused");
            }
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let ours = [
                format!("http://127.0.0.1:{}", self.port),
                format!("http://localhost:{}", self.port),
            ];
            if !ours.iter().any(|o| origin == o.as_str()) {
                return Some("requests from another origin are refused");
            }
        }
        None
    }

    fn host_is_ours(&self, request: &Request<Incoming>) -> bool {
        let Some(host) = request.headers().get(header::HOST) else {
            return false;
        };
        [
            format!("127.0.0.1:{}", self.port),
            format!("localhost:{}", self.port),
        ]
        .iter()
        .any(|h| host == h.as_str())
    }

    /// The address to print, with the token.
    pub fn address(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }
}

/// A query parameter's raw value (tokens, ids and numbers need no decoding).
pub fn parameter<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
}

/// An answer of `kind` (a content type).
pub fn answer(
    status: StatusCode,
    kind: &'static str,
    body: impl Into<Bytes>,
) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    response
}

pub fn json_answer(status: StatusCode, value: &Value) -> Response<Full<Bytes>> {
    answer(
        status,
        "application/json",
        serde_json::to_vec(value).expect("JSON values serialise"),
    )
}

/// An error as JSON: `{"error": message}`.
pub fn refusal(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    json_answer(status, &json!({ "error": message }))
}

/// The headers every answer carries: `policy` (unless the answer set its own), no sniffing,
/// no framing, no caching, and no referrer (the address holds the token).
pub fn secured<B>(mut response: Response<B>, policy: &'static str) -> Response<B> {
    let headers = response.headers_mut();
    if !headers.contains_key("content-security-policy") {
        headers.insert("content-security-policy", HeaderValue::from_static(policy));
    }
    for (name, value) in [
        ("x-content-type-options", "nosniff"),
        ("x-frame-options", "DENY"),
        ("referrer-policy", "no-referrer"),
        ("cache-control", "no-store"),
        ("cross-origin-resource-policy", "same-origin"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// The shell of a page: `{{POLICY}}` and `{{TOKEN}}` filled in (the token is hex digits
/// only, so safe in an attribute).
pub fn shell(template: &str, token: &str) -> String {
    debug_assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
    template
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
    fn parameters_are_found_by_whole_name() {
        assert_eq!(parameter("a=1&token=ab&index=3", "token"), Some("ab"));
        assert_eq!(parameter("tokens=ab", "token"), None);
        assert_eq!(parameter("index=3", "index"), Some("3"));
        assert_eq!(parameter("", "index"), None);
    }

    #[test]
    fn a_shell_holds_no_placeholder_and_no_framing_rule() {
        let page = shell("<meta content=\"{{POLICY}}\"><b>{{TOKEN}}</b>", "00ff");
        assert!(!page.contains("{{"));
        assert!(page.contains("<b>00ff</b>"));
        assert!(!page.contains("frame-ancestors"));
    }
}
