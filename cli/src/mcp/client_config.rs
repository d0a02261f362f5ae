//! How an agent finds its served tools: `PROCTOR_MCP_URL` and `PROCTOR_MCP_TOKEN`, and a
//! `.mcp.json` in its sandbox in the project-file format MCP clients read (Claude Code's
//! `.mcp.json`; Cursor and others read the same `mcpServers` map):
//! `{"mcpServers": {"proctor": {"type": "http", "url": URL, "headers": {"Authorization": "Bearer TOKEN"}}}}`.

use serde_json::json;
use std::io::Write;
use std::path::Path;

/// The file written into each sandbox of a task with `tools:`.
pub const CONFIG_FILE: &str = ".mcp.json";
/// The server's name in that file.
pub const SERVER_NAME: &str = "proctor";

/// The variables an agent gets: the URL and its attempt's token.
pub fn env(url: &str, token: &str) -> [(&'static str, String); 2] {
    [
        ("PROCTOR_MCP_URL", url.to_owned()),
        ("PROCTOR_MCP_TOKEN", token.to_owned()),
    ]
}

/// The `.mcp.json` text.
pub fn config_text(url: &str, token: &str) -> String {
    let config = json!({
        "mcpServers": {
            SERVER_NAME: {
                "type": "http",
                "url": url,
                "headers": {"Authorization": format!("Bearer {token}")},
            }
        }
    });
    serde_json::to_string_pretty(&config).unwrap_or_default() + "\n"
}

/// Writes `.mcp.json` into the sandbox before the agent starts, replacing a seed file of
/// that name (never following a link left there).
pub fn write_config(sandbox: &Path, url: &str, token: &str) -> std::io::Result<()> {
    let path = sandbox.join(CONFIG_FILE);
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    file.write_all(config_text(url, token).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_names_the_url_and_the_bearer_token() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join(CONFIG_FILE)).unwrap();
        write_config(dir.path(), "http://127.0.0.1:9/mcp", "abc").unwrap();
        let text = std::fs::read_to_string(dir.path().join(CONFIG_FILE)).unwrap();
        let config: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            config,
            json!({"mcpServers": {"proctor": {"type": "http", "url": "http://127.0.0.1:9/mcp",
                "headers": {"Authorization": "Bearer abc"}}}})
        );
        assert!(!dir.path().join(CONFIG_FILE).is_symlink());
    }
}
