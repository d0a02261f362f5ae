//! `proctor mcp-bridge`.

use clap::Args;

#[derive(Debug, Args)]
pub struct McpBridgeArgs {
    /// The server's URL (default: $PROCTOR_MCP_URL).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
}
