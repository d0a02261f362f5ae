//! The HTTP server of `proctor view`, on 127.0.0.1 only, behind
//! [`crate::loopback::page_server`]'s gate (token, own `Host`, same-origin but for the page
//! itself). Only GET: nothing the page asks changes a file. No part of a request names a
//! file: runs are named by the ids of the list.

use super::state::Shared;
use super::streamed::{self, ViewBody};
use crate::args::ReportArgs;
use crate::html::ReportInput;
use crate::loopback::page_server::{
    Fetch, Gate, POLICY, answer, json_answer, parameter, refusal, secured,
};
use crate::loopback::{Limits, Listener};
use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

const SHELL: &str = include_str!("assets/view.html");
pub const SCRIPT: &str = include_str!("assets/view.js");
pub const STYLE: &str = include_str!("assets/view.css");

/// A browser opens six connections; a few tabs of the page at once.
const LIMITS: Limits = Limits {
    connections: 64,
    head_bytes: Some(16 << 10),
    head_timeout: Some(Duration::from_secs(10)),
};

pub struct App {
    pub shared: Arc<Shared>,
    pub gate: Gate,
}

/// Serves `listener` until the returned listener is dropped.
pub fn serve(listener: TcpListener, app: Arc<App>) -> std::io::Result<Listener> {
    Listener::serve(listener, LIMITS, move |request| {
        let app = app.clone();
        async move { secured(respond(&app, request).await, POLICY) }
    })
}

async fn respond(app: &Arc<App>, request: Request<Incoming>) -> Response<ViewBody> {
    match route(app, request).await {
        Answer::Whole(response) => {
            response.map(|body| body.map_err(|never| match never {}).boxed())
        }
        Answer::Streamed(response) => response,
    }
}

/// An answer made whole, or a page streamed as it is written.
enum Answer {
    Whole(Response<Full<Bytes>>),
    Streamed(Response<ViewBody>),
}

impl From<Response<Full<Bytes>>> for Answer {
    fn from(response: Response<Full<Bytes>>) -> Answer {
        Answer::Whole(response)
    }
}

async fn route(app: &Arc<App>, request: Request<Incoming>) -> Answer {
    let path = request.uri().path().to_owned();
    let fetch = match path.as_str() {
        "/" | "/run" | "/compare" => Fetch::Navigation,
        _ => Fetch::SameOrigin,
    };
    if let Some(refused) = app.gate.refuse(&request, fetch) {
        return refused.into();
    }
    if request.method() != Method::GET {
        let why = "only GET: the viewer changes nothing";
        return refusal(StatusCode::METHOD_NOT_ALLOWED, why).into();
    }
    let query = request.uri().query().unwrap_or_default().to_owned();
    let get = |name: &str| parameter(&query, name).map(decode);
    match path.as_str() {
        "/" => answer(
            StatusCode::OK,
            "text/html; charset=utf-8",
            crate::loopback::page_server::shell(SHELL, &app.gate.token),
        )
        .into(),
        "/view.js" => answer(StatusCode::OK, "text/javascript; charset=utf-8", SCRIPT).into(),
        "/view.css" => answer(StatusCode::OK, "text/css; charset=utf-8", STYLE).into(),
        "/api/runs" => {
            let since = get("since").and_then(|v| v.parse::<u64>().ok());
            let (version, runs) = app.shared.runs();
            if since == Some(version) {
                let unchanged = json!({"version": version, "unchanged": true});
                json_answer(StatusCode::OK, &unchanged).into()
            } else {
                answer(StatusCode::OK, "application/json", runs).into()
            }
        }
        "/api/ledger" => json_answer(StatusCode::OK, &app.shared.ledger()).into(),
        "/api/compare" | "/compare" => {
            let (Some(old), Some(new)) = (get("old"), get("new")) else {
                return refusal(StatusCode::BAD_REQUEST, "give ?old=ID&new=ID").into();
            };
            let agent = get("agent");
            let page = path == "/compare";
            let shared = app.shared.clone();
            blocking(move || {
                let old = shared.path_of(&old).ok_or_else(|| not_found(&old))?;
                let new = shared.path_of(&new).ok_or_else(|| not_found(&new))?;
                let (command, args) =
                    super::pages::comparison(&old.path, &new.path, agent.as_deref())
                        .map_err(unprocessable)?;
                if page {
                    let input = super::pages::compare_page(&args).map_err(unprocessable)?;
                    Ok(Made::Page(Box::new(input)))
                } else {
                    let comparison = super::pages::comparison_json(&args).map_err(unprocessable)?;
                    Ok(Made::Json(
                        json!({"command": command, "comparison": comparison}),
                    ))
                }
            })
            .await
        }
        "/run" => {
            let Some(id) = get("id") else {
                return refusal(StatusCode::BAD_REQUEST, "give ?id=ID").into();
            };
            let shared = app.shared.clone();
            blocking(move || {
                let listed = shared.path_of(&id).ok_or_else(|| not_found(&id))?;
                // What `report` refuses is said before the page begins.
                if let Some(why) = listed.error {
                    return Err(Unmade::Refused(why));
                }
                let (_command, args) = super::pages::run_page(&listed.path, listed.record.as_ref())
                    .map_err(unprocessable)?;
                Ok(Made::RunPage(Box::new(args)))
            })
            .await
        }
        _ => refusal(StatusCode::NOT_FOUND, "not found").into(),
    }
}

/// What a request made on a blocking thread.
enum Made {
    Json(Value),
    /// A page of the HTML report, written into the answer as it is made.
    Page(Box<ReportInput>),
    /// A run's report page, its summary made while its attempts are written.
    RunPage(Box<ReportArgs>),
}

/// Why a page or comparison was not made.
enum Unmade {
    /// The id is not in the list.
    NotFound(String),
    /// The command refused the files (another suite, no common tasks, a bad line).
    Refused(String),
}

fn not_found(id: &str) -> Unmade {
    Unmade::NotFound(format!(
        "no run {id:?} in the list (it may have been removed)"
    ))
}

fn unprocessable(e: anyhow::Error) -> Unmade {
    Unmade::Refused(format!("{e:#}"))
}

/// Runs `work` on a blocking thread; a page it makes is streamed with the page's own policy
/// (its inline script and style, by hash).
async fn blocking(work: impl FnOnce() -> Result<Made, Unmade> + Send + 'static) -> Answer {
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(Made::Json(value))) => json_answer(StatusCode::OK, &value).into(),
        Ok(Ok(Made::Page(input))) => streamed_page(move |out| crate::html::write(out, &input)),
        Ok(Ok(Made::RunPage(args))) => {
            streamed_page(move |out| super::pages::write_run_page(out, &args))
        }
        Ok(Err(Unmade::NotFound(why))) => refusal(StatusCode::NOT_FOUND, &why).into(),
        Ok(Err(Unmade::Refused(why))) => refusal(StatusCode::UNPROCESSABLE_ENTITY, &why).into(),
        Err(e) => refusal(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()).into(),
    }
}

/// A page streamed as `write` writes it on a blocking thread, with the page's own policy
/// (its inline script and style, by hash). An error once the page has begun cuts the answer.
fn streamed_page(
    write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()> + Send + 'static,
) -> Answer {
    let (mut writer, body) = streamed::channel();
    tokio::task::spawn_blocking(move || {
        let written = write(&mut writer).and_then(|()| writer.flush().map_err(anyhow::Error::from));
        if let Err(e) = written {
            writer.fail(format!("{e:#}"));
        }
    });
    let mut response = Response::new(body);
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    let policy = format!("{}; frame-ancestors 'none'", crate::html::policy());
    if let Ok(value) = HeaderValue::from_str(&policy) {
        response
            .headers_mut()
            .insert("content-security-policy", value);
    }
    Answer::Streamed(response)
}

/// A query value with `%XX` and `+` decoded (agent labels may hold any character).
fn decode(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'+' => out.push(b' '),
            b'%' => match bytes
                .get(at + 1..at + 3)
                .and_then(|hex| std::str::from_utf8(hex).ok())
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
            {
                Some(b) => {
                    out.push(b);
                    at += 2;
                }
                None => out.push(b'%'),
            },
            b => out.push(b),
        }
        at += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_decoded() {
        assert_eq!(decode("v2"), "v2");
        assert_eq!(decode("a%20b+c"), "a b c");
        assert_eq!(decode("%E2%89%A5"), "≥");
        assert_eq!(decode("50%"), "50%");
        assert_eq!(decode("%zz"), "%zz");
    }

    #[test]
    fn the_script_never_parses_data_as_markup() {
        for forbidden in crate::html::FORBIDDEN_IN_SCRIPTS {
            assert!(!SCRIPT.contains(forbidden), "view.js uses {forbidden}");
            assert!(!STYLE.contains(forbidden), "view.css uses {forbidden}");
        }
        let page = crate::loopback::page_server::shell(SHELL, "00ff");
        assert!(!page.contains("{{"));
        assert!(page.contains("/view.js?token=00ff"));
    }
}
