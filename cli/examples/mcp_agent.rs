//! A fixture agent on rmcp's MCP client (streamable HTTP): the refund agent of
//! `fixtures/agents/mcp/sdk_agent.py`, written against the official Rust SDK instead.
//!
//! It connects to `PROCTOR_MCP_URL` with the bearer token `PROCTOR_MCP_TOKEN`, lists the
//! tools, calls `get_order {order_id}` for the order id in the task's input and, when
//! `days_since_delivery` is at most 30, `refund {order_id}`; then writes its outcome (with
//! the calls as its reported trajectory under `--report`) to `PROCTOR_OUTCOME`.
//!
//! Built by the tests: `cargo build -p proctor --example mcp_agent`.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

const POLICY_DAYS: u64 = 30;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    let task: Value = serde_json::from_str(&line).unwrap_or_default();
    let input = task["input"].as_str().unwrap_or_default().to_owned();
    let url = std::env::var("PROCTOR_MCP_URL")?;
    let token = std::env::var("PROCTOR_MCP_TOKEN")?;
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(token),
    );
    let client = ().serve(transport).await?;
    let tools = client.list_all_tools().await?;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    let mut trajectory = Vec::new();
    let order_id = input
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| {
            w.len() >= 2
                && w.starts_with(|c: char| c.is_ascii_uppercase())
                && w[1..].chars().all(|c| c.is_ascii_digit())
        })
        .unwrap_or_default()
        .to_owned();
    let mut call =
        async |tool: &str| -> Result<Option<Value>, Box<dyn std::error::Error>> {
            let args = json!({"order_id": order_id});
            trajectory.push(json!({"tool": tool, "args": args}));
            let params = CallToolRequestParams::new(tool.to_owned())
                .with_arguments(args.as_object().cloned().unwrap_or_default());
            let result = client.call_tool(params).await?;
            Ok((result.is_error != Some(true))
                .then_some(result.structured_content.unwrap_or_default()))
        };
    let answer = if !names.contains(&"get_order") {
        format!("no get_order tool among {names:?}")
    } else {
        match call("get_order").await? {
            Some(order) => match order["days_since_delivery"].as_u64() {
                Some(days) if days <= POLICY_DAYS => match call("refund").await? {
                    Some(_) => format!("refunded {order_id}"),
                    None => format!("refund failed: {order_id}"),
                },
                Some(_) => format!("not eligible: {order_id} is past the 30-day window"),
                None => format!("not found: {order_id}"),
            },
            None => format!("not found: {order_id}"),
        }
    };
    client.cancel().await?;
    let mut outcome = json!({"status": "final", "answer": answer});
    if std::env::args().any(|a| a == "--report") {
        outcome["trajectory"] = Value::Array(trajectory);
    }
    std::fs::write(std::env::var("PROCTOR_OUTCOME")?, outcome.to_string())?;
    Ok(())
}
