//! Served tools over MCP (docs/tools.md): for a task with `tools:`, each attempt's agent
//! reaches the task's tools at `PROCTOR_MCP_URL` with the bearer token
//! `PROCTOR_MCP_TOKEN`, and every call is recorded; the recorded calls are the graded
//! trajectory.
//!
//! - [`service`]: proctor's own seam between an MCP SDK and the tools: [`ToolService`](service::ToolService).
//! - [`attempt`]: one attempt's tools: argument checks, the step cap, backends, recording.
//! - [`call_args`]: a call's arguments, parsed and as the agent wrote them.
//! - [`script`]: the `script` backend, run outside the agent's isolation.
//! - [`server_backend`]: the `server` backend, one process per command line per attempt.
//! - [`record`]: the recorded calls, and the trajectory made of them.
//! - [`rmcp_adapter`]: the only file that speaks `rmcp`'s server API.
//! - [`server`]: the loopback listener that checks the token and picks the attempt.
//! - [`user`]: the simulated user of a task with `user:`, behind `ask_user`.
//! - [`client_config`]: the agent's `PROCTOR_MCP_*` variables and `.mcp.json`.

pub mod attempt;
pub mod call_args;
pub mod client_config;
pub mod faults;
pub mod record;
pub mod rmcp_adapter;
pub mod script;
pub mod server;
pub mod server_backend;
pub mod service;
pub mod user;

pub use server::ToolServer;
