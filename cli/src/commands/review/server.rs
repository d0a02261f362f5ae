//! The HTTP server of a review, on 127.0.0.1 only.
//!
//! Every request passes [`crate::loopback::page_server`]'s gate: the token (query `token=`
//! or header `X-Proctor-Token`), a `Host` of this server, and same-origin for everything but
//! the page itself; otherwise 403. The routes are fixed: the page, its script and style, the
//! state, one attempt's detail, and `POST /api/label`, which must also be JSON and at most
//! [`MAX_BODY_BYTES`]. No part of a request names a file: the files shown
//! are those of the offered attempts, read by the bundle code. The listener is
//! [`crate::loopback`]'s, which bounds connections, heads and bodies (see [`LIMITS`]).

use super::page;
use super::session::{PostedLabel, Refusal, Session};
use crate::loopback::page_server::{
    Fetch, Gate, POLICY, answer, json_answer, parameter, refusal, secured,
};
use crate::loopback::{BodyError, Limits, Listener, declared_length, read_body};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::Value;
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
    pub gate: Gate,
}

/// Serves `listener` (made by [`crate::loopback::bind`]) until the returned listener is
/// dropped.
pub fn serve(listener: TcpListener, app: Arc<App>) -> std::io::Result<Listener> {
    Listener::serve(listener, LIMITS, move |request| {
        let app = app.clone();
        async move { secured(respond(&app, request).await, POLICY) }
    })
}

async fn respond(app: &Arc<App>, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let fetch = match request.uri().path() {
        "/" => Fetch::Navigation,
        _ => Fetch::SameOrigin,
    };
    if let Some(refused) = app.gate.refuse(&request, fetch) {
        return refused;
    }
    let query = request.uri().query().unwrap_or_default();
    match (request.method(), request.uri().path()) {
        (&Method::GET, "/") => answer(
            StatusCode::OK,
            "text/html; charset=utf-8",
            page::html(&app.gate.token),
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
