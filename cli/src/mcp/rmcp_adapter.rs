//! `rmcp` (the official Rust MCP SDK) serving a [`ToolService`] over streamable HTTP.
//! This is the only file that uses rmcp's server API: another SDK means another adapter.
//!
//! The service is stateless (no `Mcp-Session-Id`) and answers with plain JSON bodies:
//! every request carries the attempt's bearer token, so there is no session to keep, and
//! clients of every protocol version since 2024-11-05 are served (mcp 1.x Python clients
//! send 2025-03-26).

use super::service::{ToolReply, ToolService};
use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
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
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.map(serde_json::Value::Object);
        let result = match self.0.call(&request.name, args).await {
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
        Ok(result.into())
    }
}

/// The streamable HTTP service for one attempt's tools.
#[derive(Clone)]
pub struct McpHttp(StreamableHttpService<Handler, NeverSessionManager>);

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
        let handler = Handler(tools);
        McpHttp(StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(NeverSessionManager::default()),
            config,
        ))
    }

    /// Serves one HTTP request.
    pub async fn serve(&self, request: http::Request<hyper::body::Incoming>) -> McpResponse {
        let mut service = self.0.clone();
        match tower_service::Service::call(&mut service, request).await {
            Ok(response) => response,
            Err(never) => match never {},
        }
    }
}
