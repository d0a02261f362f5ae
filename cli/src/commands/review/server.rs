//! The HTTP server of a review, on 127.0.0.1 only.
//!
//! Every request needs the token (query `token=` or header `X-Proctor-Token`) and a `Host`
//! of this server (a page of another site cannot rebind a name to it); otherwise 403. The
//! routes are fixed: the page, its script and style, the state, one attempt's detail, and
//! `POST /api/label`, which is refused unless same-origin (`Origin`, `Sec-Fetch-Site`),
//! JSON, and at most [`MAX_BODY_BYTES`]. No part of a request names a file: the files shown
//! are those of the offered attempts, read by the bundle code. The listener is
//! [`crate::loopback`]'s, which bounds connections, heads and bodies (see [`LIMITS`]).

use super::page::{self, POLICY};
use super::session::{PostedLabel, Refusal, Session};
use super::token;
use crate::loopback::{BodyError, Limits, Listener, declared_length, read_body};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// The largest request body read: a label with its note.
pub const MAX_BODY_BYTES: usize = 16 << 10;
/// What a client of the page may hold: a few connections (a browser opens six), short heads
/// that arrive in time.
const LIMITS: Limits = Limits {
    connections: 64,
    head_bytes: Some(16 << 10),
    head_timeout: Some(Duration::from_secs(10)),
};
/// Label bodies held at once: one per connection, so none waits for another's.
static BODIES_IN_MEMORY: Semaphore = Semaphore::const_new(64 * MAX_BODY_BYTES);

pub struct App {
    pub session: Session,
    pub token: String,
    pub port: u16,
}

/// Serves `listener` (made by [`crate::loopback::bind`]) until the returned listener is
/// dropped.
pub fn serve(listener: TcpListener, app: Arc<App>) -> std::io::Result<Listener> {
    Listener::serve(listener, LIMITS, move |request| {
        let app = app.clone();
        async move { secured(respond(&app, request).await) }
    })
}

async fn respond(app: &Arc<App>, request: Request<Incoming>) -> Response<Full<Bytes>> {
    if !host_is_ours(app, &request) {
        return refusal(
            StatusCode::FORBIDDEN,
            "this server answers only to its own address",
        );
    }
    let query = request.uri().query().unwrap_or_default();
    let given = request
        .headers()
        .get("x-proctor-token")
        .and_then(|v| v.to_str().ok())
        .or_else(|| parameter(query, "token"));
    if !given.is_some_and(|t| token::matches(t, &app.token)) {
        return refusal(
            StatusCode::FORBIDDEN,
            "the token is missing or wrong: open the address proctor review printed",
        );
    }
    match (request.method(), request.uri().path()) {
        (&Method::GET, "/") => answer(
            StatusCode::OK,
            "text/html; charset=utf-8",
            page::html(&app.token),
        ),
        (&Method::GET, "/review.js") => answer(
            StatusCode::OK,
            "text/javascript; charset=utf-8",
            page::SCRIPT,
        ),
        (&Method::GET, "/review.css") => {
            answer(StatusCode::OK, "text/css; charset=utf-8", page::STYLE)
        }
        (&Method::GET, "/api/state") => blocking(app, |session| session.state()).await,
        (&Method::GET, "/api/attempt") => {
            let Some(index) = parameter(query, "index").and_then(|i| i.parse::<usize>().ok())
            else {
                return refusal(StatusCode::BAD_REQUEST, "give ?index=N");
            };
            let app = app.clone();
            let detail = tokio::task::spawn_blocking(move || app.session.detail(index)).await;
            match detail {
                Ok(Some(Ok(value))) => json_answer(StatusCode::OK, &value),
                Ok(None) => refusal(StatusCode::NOT_FOUND, "no such attempt"),
                Ok(Some(Err(e))) => refusal(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e:#}")),
                Err(e) => refusal(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
            }
        }
        (&Method::POST, "/api/label") => label(app, request).await,
        (_, "/" | "/review.js" | "/review.css" | "/api/state" | "/api/attempt" | "/api/label") => {
            refusal(StatusCode::METHOD_NOT_ALLOWED, "method not allowed")
        }
        _ => refusal(StatusCode::NOT_FOUND, "not found"),
    }
}

async fn label(app: &Arc<App>, request: Request<Incoming>) -> Response<Full<Bytes>> {
    if let Some(refused) = cross_site(app, &request) {
        return refusal(StatusCode::FORBIDDEN, refused);
    }
    let headers = request.headers();
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.to_ascii_lowercase().starts_with("application/json"));
    if !is_json {
        return refusal(StatusCode::UNSUPPORTED_MEDIA_TYPE, "send application/json");
    }
    let declared = declared_length(headers);
    let too_large = || {
        refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("a label is at most {MAX_BODY_BYTES} bytes"),
        )
    };
    if declared.is_some_and(|size| size > MAX_BODY_BYTES as u64) {
        return too_large();
    }
    let body = match read_body(request.into_body(), MAX_BODY_BYTES, &BODIES_IN_MEMORY).await {
        Ok((body, _memory)) => body,
        Err(BodyError::TooLarge) => return too_large(),
        Err(error @ BodyError::Late) => {
            return refusal(StatusCode::REQUEST_TIMEOUT, &error.to_string());
        }
        Err(error) => return refusal(StatusCode::BAD_REQUEST, &error.to_string()),
    };
    let posted: PostedLabel = match serde_json::from_slice(&body) {
        Ok(posted) => posted,
        Err(e) => return refusal(StatusCode::BAD_REQUEST, &format!("not a label: {e}")),
    };
    let app = app.clone();
    match tokio::task::spawn_blocking(move || app.session.label(posted)).await {
        Ok(Ok(state)) => json_answer(StatusCode::OK, &state),
        Ok(Err(Refusal::Bad(why))) => refusal(StatusCode::BAD_REQUEST, &why),
        Ok(Err(Refusal::Conflict(why))) => refusal(StatusCode::CONFLICT, &why),
        Ok(Err(Refusal::Failed(why))) => refusal(StatusCode::INTERNAL_SERVER_ERROR, &why),
        Err(e) => refusal(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

/// Why a POST is refused as cross-site, if it is. Browsers send `Origin` with every POST
/// and `Sec-Fetch-Site` with every request; clients that send neither (curl, tests) hold
/// the token and are not a browser page of another site.
fn cross_site(app: &App, request: &Request<Incoming>) -> Option<&'static str> {
    let headers = request.headers();
    if let Some(site) = headers.get("sec-fetch-site")
        && site != "same-origin"
    {
        return Some("cross-site requests are refused");
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ours = [
            format!("http://127.0.0.1:{}", app.port),
            format!("http://localhost:{}", app.port),
        ];
        if !ours.iter().any(|o| origin == o.as_str()) {
            return Some("requests from another origin are refused");
        }
    }
    None
}

fn host_is_ours(app: &App, request: &Request<Incoming>) -> bool {
    let Some(host) = request.headers().get(header::HOST) else {
        return false;
    };
    [
        format!("127.0.0.1:{}", app.port),
        format!("localhost:{}", app.port),
    ]
    .iter()
    .any(|h| host == h.as_str())
}

/// A query parameter's raw value (tokens and numbers need no decoding).
fn parameter<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
}

async fn blocking(
    app: &Arc<App>,
    work: impl FnOnce(&Session) -> anyhow::Result<Value> + Send + 'static,
) -> Response<Full<Bytes>> {
    let app = app.clone();
    match tokio::task::spawn_blocking(move || work(&app.session)).await {
        Ok(Ok(value)) => json_answer(StatusCode::OK, &value),
        Ok(Err(e)) => refusal(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e:#}")),
        Err(e) => refusal(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

fn answer(status: StatusCode, kind: &'static str, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body.into()));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    response
}

fn json_answer(status: StatusCode, value: &Value) -> Response<Full<Bytes>> {
    answer(
        status,
        "application/json",
        serde_json::to_vec(value).expect("JSON values serialise"),
    )
}

fn refusal(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    json_answer(status, &json!({ "error": message }))
}

/// The headers every answer carries: the policy, no sniffing, no framing, no caching,
/// and no referrer (the address holds the token).
fn secured(mut response: Response<Full<Bytes>>) -> Response<Full<Bytes>> {
    let headers = response.headers_mut();
    for (name, value) in [
        ("content-security-policy", POLICY),
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
}
