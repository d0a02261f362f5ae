//! `rmcp` (the official Rust MCP SDK) serving a [`ToolService`] over streamable HTTP.
//! This is the only file that uses rmcp's server API: another SDK means another adapter.
//!
//! The service is stateless (no `Mcp-Session-Id`) and answers with plain JSON bodies:
//! every request carries the attempt's bearer token, so there is no session to keep, and
//! clients of every protocol version since 2024-11-05 are served (mcp 1.x Python clients
//! send 2025-03-26).
//!
//! A plain `tools/call` (the request an agent repeats) is answered on a fast path here, with
//! rmcp's message types but without rmcp's per-request service task and channels: stateless
//! JSON replies need neither. Only requests rmcp would accept as they are take it (loopback
//! `Host`, both media types accepted without parameters, JSON body, a protocol version
//! before per-request metadata, no other `Mcp-*` headers, no `_meta`); everything else,
//! and every other method, goes to rmcp with the body already read.
//!
//! Both paths hand the tools a call's arguments parsed and as the agent wrote them
//! ([`CallArgs`]): for rmcp's path the text is read from the body here and carried in the
//! request's extensions, which rmcp passes to the handler.

use super::call_args::CallArgs;
use super::service::{ToolReply, ToolService};
use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, JsonRpcVersion2_0, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    RequestId, ServerCapabilities, ServerConfig, ServerJsonRpcMessage, ServerResult, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::value::RawValue;
use std::convert::Infallible;
use std::sync::Arc;

/// The largest request body read: a tool call's arguments.
pub const MAX_REQUEST_BYTES: usize = 4 << 20;

/// An HTTP response as the rmcp service makes it.
pub type McpResponse = http::Response<BoxBody<Bytes, Infallible>>;

/// One attempt's tools as an rmcp server handler.
#[derive(Clone)]
struct Handler(Arc<dyn ToolService>);

impl std::fmt::Debug for Handler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Handler")
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("proctor", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self
            .0
            .tools()
            .iter()
            .map(|tool| {
                let schema = tool.input_schema.as_object().cloned().unwrap_or_default();
                Tool::new(
                    tool.name.clone(),
                    tool.description.clone(),
                    Arc::new(schema),
                )
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The arguments' text, which `McpHttp::serve` put beside the request.
        let raw = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<RawArguments>());
        let raw = raw.map(|raw| raw.0.as_ref());
        Ok(
            call_tool(self.0.as_ref(), &request.name, request.arguments, raw)
                .await?
                .into(),
        )
    }
}

/// The text of a `tools/call`'s arguments, as the agent sent them, carried with a request
/// rmcp answers: rmcp hands the handler parsed arguments only.
#[derive(Debug, Clone)]
struct RawArguments(Box<RawValue>);

/// Answers one `tools/call`, on rmcp's path and on the fast path alike; `raw` is the
/// arguments' text when it is at hand.
async fn call_tool(
    tools: &dyn ToolService,
    name: &str,
    arguments: Option<JsonObject>,
    raw: Option<&RawValue>,
) -> Result<CallToolResult, ErrorData> {
    let args = arguments.map(|arguments| CallArgs::new(serde_json::Value::Object(arguments), raw));
    let result = match tools.call(name, args).await {
        ToolReply::Result { value, is_error } => {
            let content = vec![ContentBlock::text(value.to_string())];
            let mut result = if is_error {
                CallToolResult::error(content)
            } else {
                CallToolResult::success(content)
            };
            if value.is_object() {
                result.structured_content = Some(value);
            }
            result
        }
        ToolReply::Text { text, is_error } => {
            let content = vec![ContentBlock::text(text)];
            if is_error {
                CallToolResult::error(content)
            } else {
                CallToolResult::success(content)
            }
        }
        ToolReply::Refused(message) => return Err(ErrorData::invalid_params(message, None)),
    };
    Ok(result)
}

/// The streamable HTTP service for one attempt's tools.
#[derive(Clone)]
pub struct McpHttp {
    rmcp: StreamableHttpService<Handler, NeverSessionManager>,
    tools: Arc<dyn ToolService>,
}

impl std::fmt::Debug for McpHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("McpHttp")
    }
}

impl McpHttp {
    pub fn new(tools: Arc<dyn ToolService>) -> McpHttp {
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None)
            .with_max_request_body_bytes(MAX_REQUEST_BYTES);
        let handler = Handler(tools.clone());
        McpHttp {
            rmcp: StreamableHttpService::new(
                move || Ok(handler.clone()),
                Arc::new(NeverSessionManager::default()),
                config,
            ),
            tools,
        }
    }

    /// Serves one HTTP request.
    pub async fn serve<B>(&self, request: http::Request<B>) -> McpResponse
    where
        B: hyper::body::Body<Data = Bytes> + Send + 'static,
        B::Error: std::error::Error + Send + Sync + 'static,
    {
        let fast = takes_fast_path(&request);
        let (mut parts, body) = request.into_parts();
        let Ok(body) = Limited::new(body, MAX_REQUEST_BYTES).collect().await else {
            return plain(
                http::StatusCode::BAD_REQUEST,
                "Bad Request: the request body could not be read",
            );
        };
        let body = body.to_bytes();
        if fast && let Ok(call) = serde_json::from_slice::<PlainToolCall>(&body) {
            let arguments = call
                .params
                .arguments
                .map(|raw| serde_json::from_str::<JsonObject>(raw.get()).map(|a| (a, raw)))
                .transpose();
            // Arguments that are no object are rmcp's to refuse.
            if let Ok(arguments) = arguments {
                return self.answer(call.id, &call.params.name, arguments).await;
            }
        }
        if let Some(raw) = raw_arguments(&body) {
            parts.extensions.insert(RawArguments(raw));
        }
        self.rmcp
            .handle(http::Request::from_parts(parts, Full::new(body)))
            .await
    }

    /// The fast path's reply: the JSON-RPC message rmcp's service would send.
    async fn answer(
        &self,
        id: RequestId,
        name: &str,
        arguments: Option<(JsonObject, &RawValue)>,
    ) -> McpResponse {
        let (arguments, raw) = arguments.unzip();
        let message = match call_tool(self.tools.as_ref(), name, arguments, raw).await {
            Ok(result) => {
                // Every version the fast path takes predates `resultType`.
                let mut result = ServerResult::CallToolResult(result);
                result.strip_result_type_for_legacy_peer();
                ServerJsonRpcMessage::response(result, id)
            }
            Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
        };
        match serde_json::to_vec(&message) {
            Ok(body) => http::Response::builder()
                .status(http::StatusCode::OK)
                .header(http::header::CONTENT_TYPE, JSON_MIME_TYPE)
                .body(Full::new(Bytes::from(body)).boxed())
                .unwrap_or_else(|_| plain(http::StatusCode::INTERNAL_SERVER_ERROR, "")),
            Err(e) => plain(
                http::StatusCode::INTERNAL_SERVER_ERROR,
                &format!("Internal Server Error: serialize json response: {e}"),
            ),
        }
    }
}

const JSON_MIME_TYPE: &str = "application/json";
const EVENT_STREAM_MIME_TYPE: &str = "text/event-stream";
const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// A `tools/call` request with nothing but a tool name and arguments: any other member
/// (`_meta`, `task`, input responses) makes the body fail to parse, and rmcp answers it.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainToolCall<'a> {
    #[serde(rename = "jsonrpc")]
    _version: JsonRpcVersion2_0,
    id: RequestId,
    #[serde(rename = "method", deserialize_with = "tools_call_method")]
    _method: String,
    #[serde(borrow)]
    params: PlainToolCallParams<'a>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainToolCallParams<'a> {
    name: String,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
}

/// The arguments' text of a body holding one `tools/call`, for a request rmcp answers.
fn raw_arguments(body: &[u8]) -> Option<Box<RawValue>> {
    #[derive(serde::Deserialize)]
    struct Call<'a> {
        method: Option<String>,
        #[serde(borrow)]
        params: Option<Params<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        arguments: Option<&'a RawValue>,
    }
    let call: Call = serde_json::from_slice(body).ok()?;
    if call.method.as_deref() != Some("tools/call") {
        return None;
    }
    call.params?.arguments.map(RawValue::to_owned)
}

fn tools_call_method<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let method = <String as serde::Deserialize>::deserialize(d)?;
    if method != "tools/call" {
        return Err(serde::de::Error::custom("not tools/call"));
    }
    Ok(method)
}

/// Whether rmcp would take this request's headers as they are, so the fast path may
/// answer it; anything unusual is left to rmcp's own checks and answers.
fn takes_fast_path<B>(request: &http::Request<B>) -> bool {
    let headers = request.headers();
    let one = |name: http::header::HeaderName| {
        let mut values = headers.get_all(name).iter();
        match (values.next(), values.next()) {
            (Some(value), None) => value.to_str().ok(),
            _ => None,
        }
    };
    let loopback_host = one(http::header::HOST).is_some_and(|host| {
        let name = match host.rsplit_once(':') {
            Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
            _ => host,
        };
        name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost")
    });
    let accepts_both = one(http::header::ACCEPT).is_some_and(|accept| {
        let types: Vec<&str> = accept.split(',').map(str::trim).collect();
        !accept.contains(';')
            && types.iter().any(|t| t.eq_ignore_ascii_case(JSON_MIME_TYPE))
            && types
                .iter()
                .any(|t| t.eq_ignore_ascii_case(EVENT_STREAM_MIME_TYPE))
    });
    let json_body = one(http::header::CONTENT_TYPE).is_some_and(|t| {
        t.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .eq_ignore_ascii_case(JSON_MIME_TYPE)
    });
    let bounded_body = one(http::header::CONTENT_LENGTH)
        .and_then(|length| length.parse::<usize>().ok())
        .is_some_and(|length| length <= MAX_REQUEST_BYTES)
        && !headers.contains_key(http::header::TRANSFER_ENCODING);
    let version_before_metadata = match headers.get_all(PROTOCOL_VERSION_HEADER).iter().count() {
        0 => true,
        1 => one(http::header::HeaderName::from_static(
            PROTOCOL_VERSION_HEADER,
        ))
        .is_some_and(|version| {
            ProtocolVersion::KNOWN_VERSIONS.iter().any(|known| {
                known.as_str() == version && version < ProtocolVersion::STANDARD_HEADERS.as_str()
            })
        }),
        _ => false,
    };
    let no_other_mcp_headers = headers
        .keys()
        .all(|name| name == PROTOCOL_VERSION_HEADER || !name.as_str().starts_with("mcp-"));
    request.method() == http::Method::POST
        && loopback_host
        && accepts_both
        && json_body
        && bounded_body
        && version_before_metadata
        && no_other_mcp_headers
}

fn plain(status: http::StatusCode, text: &str) -> McpResponse {
    let mut response = http::Response::new(Full::new(Bytes::from(text.to_owned())).boxed());
    *response.status_mut() = status;
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::service::{Reply, ToolReply};
    use proctor_core::tools::ToolSpec;
    use serde_json::{Value, json};

    /// Answers by tool name, so each kind of reply can be asked for.
    struct Replies;

    impl ToolService for Replies {
        fn tools(&self) -> &[ToolSpec] {
            &[]
        }

        fn call<'a>(&'a self, name: &'a str, args: Option<CallArgs>) -> Reply<'a> {
            let text = args.as_ref().map(|args| args.text().get().to_owned());
            let args = args.map(CallArgs::into_value);
            let reply = match name {
                "object" => ToolReply::Result {
                    value: json!({"order_id": "A1", "args": args, "text": text}),
                    is_error: false,
                },
                "number" => ToolReply::Result {
                    value: json!(12),
                    is_error: false,
                },
                "failing" => ToolReply::Result {
                    value: json!({"error": "upstream unavailable"}),
                    is_error: true,
                },
                "text" => ToolReply::Text {
                    text: "not json".into(),
                    is_error: true,
                },
                _ => ToolReply::Refused(format!("unknown tool `{name}`")),
            };
            Box::pin(async move { reply })
        }
    }

    fn post(body: &Value, accept: &str, extra: &[(&str, &str)]) -> http::Request<Full<Bytes>> {
        let body = body.to_string();
        let mut request = http::Request::post("/mcp")
            .header("host", "127.0.0.1:4000")
            .header("accept", accept)
            .header("content-type", "application/json")
            .header("content-length", body.len().to_string());
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        request.body(Full::new(Bytes::from(body))).unwrap()
    }

    async fn send(http: &McpHttp, request: http::Request<Full<Bytes>>) -> (u16, String, String) {
        let response = http.serve(request).await;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (
            status,
            content_type,
            String::from_utf8(body.to_vec()).unwrap(),
        )
    }

    #[tokio::test]
    async fn the_fast_path_answers_tool_calls_exactly_as_rmcp_does() {
        let http = McpHttp::new(Arc::new(Replies));
        let both = "application/json, text/event-stream";
        // A quality parameter is something only rmcp's own parser handles.
        let rmcp_only = "application/json;q=1, text/event-stream";
        for (id, name, arguments) in [
            (json!(1), "object", Some(json!({"order_id": "A1"}))),
            (json!("a"), "number", None),
            (json!(3), "failing", Some(json!({}))),
            (json!(4), "text", None),
            (json!(5), "missing", None),
        ] {
            let mut params = json!({"name": name});
            if let Some(arguments) = arguments {
                params["arguments"] = arguments;
            }
            let body =
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
            for version in [None, Some("2025-03-26"), Some("2025-11-25")] {
                let extra: Vec<(&str, &str)> = version
                    .map(|v| ("mcp-protocol-version", v))
                    .into_iter()
                    .collect();
                assert!(takes_fast_path(&post(&body, both, &extra)));
                assert!(serde_json::from_str::<PlainToolCall>(&body.to_string()).is_ok());
                assert!(!takes_fast_path(&post(&body, rmcp_only, &extra)));
                let fast = send(&http, post(&body, both, &extra)).await;
                let rmcp = send(&http, post(&body, rmcp_only, &extra)).await;
                assert_eq!(fast, rmcp, "{name} {version:?}");
                assert_eq!(fast.0, 200);
            }
        }
    }

    #[tokio::test]
    async fn both_paths_hand_on_the_arguments_as_the_agent_wrote_them() {
        let http = McpHttp::new(Arc::new(Replies));
        let both = "application/json, text/event-stream";
        for meta in ["", r#", "_meta": {}"#] {
            let body = format!(
                r#"{{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {{"name": "object", "arguments": {{"n": 123456789012345678901234567890, "x": 1.10}}{meta}}}}}"#
            );
            let request = http::Request::post("/mcp")
                .header("host", "127.0.0.1:4000")
                .header("accept", both)
                .header("content-type", "application/json")
                .header("content-length", body.len().to_string())
                .body(Full::new(Bytes::from(body)))
                .unwrap();
            assert!(takes_fast_path(&request));
            let (status, _, reply) = send(&http, request).await;
            assert_eq!(status, 200, "{reply}");
            let reply: Value = serde_json::from_str(&reply).unwrap();
            assert_eq!(
                reply["result"]["structuredContent"]["text"],
                r#"{"n":123456789012345678901234567890,"x":1.10}"#,
                "{meta}"
            );
        }
    }

    #[tokio::test]
    async fn requests_the_fast_path_does_not_know_go_to_rmcp() {
        let http = McpHttp::new(Arc::new(Replies));
        let both = "application/json, text/event-stream";
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "object", "_meta": {"progressToken": 1}}});
        let (status, _, body) = send(&http, post(&call, both, &[])).await;
        assert_eq!(status, 200);
        assert!(body.contains("\"structuredContent\""), "{body}");
        let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
        let (status, _, body) = send(&http, post(&ping, both, &[])).await;
        assert_eq!(
            (status, body.as_str()),
            (200, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#)
        );
        let unknown_version = [("mcp-protocol-version", "1999-01-01")];
        assert!(!takes_fast_path(&post(&call, both, &unknown_version)));
        let (status, _, _) = send(&http, post(&ping, both, &unknown_version)).await;
        assert_eq!(status, 400);
        let mut foreign_host = post(&ping, both, &[]);
        foreign_host
            .headers_mut()
            .insert("host", http::HeaderValue::from_static("evil.example:4000"));
        assert!(!takes_fast_path(&foreign_host));
        assert_eq!(send(&http, foreign_host).await.0, 403);
        let (status, _, _) = send(&http, post(&call, "application/json", &[])).await;
        assert_eq!(status, 406);
    }
}
