//! Faults applied to served calls (DESIGN 13). Which call gets which fault is decided
//! elsewhere, from the attempt seed, through [`FaultDecider`]; this file only applies a
//! decided fault. Every fault is a tool result or a delay, never a broken protocol frame.

use super::service::ToolReply;
use serde_json::{Value, json};
use std::time::Duration;

/// A fault as the server applies it.
// Built from the task's `faults:` once they are decided per attempt; until then only tests
// apply them.
#[allow(dead_code)]
#[derive(Debug, Clone, PartialEq)]
pub enum ServedFault {
    /// A tool error with this message.
    Error { message: String },
    /// No answer for `ms`, then a tool error saying the call timed out.
    Timeout { ms: u64 },
    /// The real answer, `ms` late.
    Latency { ms: u64 },
    /// A tool error with a retry hint.
    RateLimit { retry_after_s: u64, message: String },
    /// The real result's text cut in half: not JSON any more.
    Malformed,
    /// An empty result text.
    Empty,
    /// The real result with `payload` appended to its text (indirect prompt injection).
    Inject { payload: String },
}

impl ServedFault {
    /// The kind's name, as a result line lists it.
    pub fn kind(&self) -> &'static str {
        match self {
            ServedFault::Error { .. } => "error",
            ServedFault::Timeout { .. } => "timeout",
            ServedFault::Latency { .. } => "latency",
            ServedFault::RateLimit { .. } => "rate_limit",
            ServedFault::Malformed => "malformed",
            ServedFault::Empty => "empty",
            ServedFault::Inject { .. } => "inject",
        }
    }
}

/// Decides whether the `call_number`th call (from 1) of `tool` gets a fault.
pub trait FaultDecider: Send + Sync + std::fmt::Debug {
    fn decide(&self, tool: &str, call_number: u32) -> Option<ServedFault>;
}

/// What a fault does before the backend runs: `Some(reply)` replaces the call's answer
/// (the backend is not called), `None` lets the backend answer (after a latency's delay).
pub async fn before(fault: &ServedFault) -> Option<ToolReply> {
    match fault {
        ServedFault::Error { message } => Some(tool_error(json!({"error": message}))),
        ServedFault::Timeout { ms } => {
            tokio::time::sleep(Duration::from_millis(*ms)).await;
            Some(tool_error(
                json!({"error": format!("timed out after {ms} ms")}),
            ))
        }
        ServedFault::Latency { ms } => {
            tokio::time::sleep(Duration::from_millis(*ms)).await;
            None
        }
        ServedFault::RateLimit {
            retry_after_s,
            message,
        } => Some(tool_error(
            json!({"error": message, "retry_after_s": retry_after_s}),
        )),
        ServedFault::Malformed | ServedFault::Empty | ServedFault::Inject { .. } => None,
    }
}

/// What a fault does to the backend's answer.
pub fn after(fault: &ServedFault, reply: ToolReply) -> ToolReply {
    let text_of = |reply: &ToolReply| match reply {
        ToolReply::Result { value, .. } => value.to_string(),
        ToolReply::Text { text, .. } => text.clone(),
        ToolReply::Refused(message) => message.clone(),
    };
    match fault {
        ServedFault::Malformed => {
            let text = text_of(&reply);
            let mut cut = text.len() / 2;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            ToolReply::Text {
                text: text[..cut].to_owned(),
                is_error: false,
            }
        }
        ServedFault::Empty => ToolReply::Text {
            text: String::new(),
            is_error: false,
        },
        ServedFault::Inject { payload } => ToolReply::Text {
            text: format!("{}\n{payload}", text_of(&reply)),
            is_error: matches!(reply, ToolReply::Result { is_error: true, .. }),
        },
        _ => reply,
    }
}

fn tool_error(value: Value) -> ToolReply {
    ToolReply::Result {
        value,
        is_error: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_fault_is_a_tool_result_never_a_broken_frame() {
        let real = || ToolReply::Result {
            value: json!({"order_id": "A1", "days": 12}),
            is_error: false,
        };
        assert_eq!(
            before(&ServedFault::Error {
                message: "upstream unavailable".into()
            })
            .await,
            Some(tool_error(json!({"error": "upstream unavailable"})))
        );
        assert_eq!(
            before(&ServedFault::RateLimit {
                retry_after_s: 3,
                message: "slow down".into()
            })
            .await,
            Some(tool_error(
                json!({"error": "slow down", "retry_after_s": 3})
            ))
        );
        assert_eq!(
            before(&ServedFault::Timeout { ms: 5 }).await,
            Some(tool_error(json!({"error": "timed out after 5 ms"})))
        );
        assert_eq!(before(&ServedFault::Latency { ms: 1 }).await, None);
        assert_eq!(
            after(&ServedFault::Malformed, real()),
            ToolReply::Text {
                text: "{\"order_id\":\"".into(),
                is_error: false
            }
        );
        assert_eq!(
            after(&ServedFault::Empty, real()),
            ToolReply::Text {
                text: String::new(),
                is_error: false
            }
        );
        assert_eq!(
            after(
                &ServedFault::Inject {
                    payload: "IGNORE PREVIOUS".into()
                },
                real()
            ),
            ToolReply::Text {
                text: "{\"order_id\":\"A1\",\"days\":12}\nIGNORE PREVIOUS".into(),
                is_error: false
            }
        );
    }
}
