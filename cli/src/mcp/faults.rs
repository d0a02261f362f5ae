//! Faults applied to served calls (DESIGN 13). Which call gets which fault is decided by
//! the attempt's [`proctor_core::faults::FaultPlan`] from its seed; this file only applies
//! a decided fault. Every fault is a tool result or a delay, never a broken protocol frame:
//! `error`, `timeout` and `rate_limit` are tool errors (`isError: true`), `malformed` and
//! `empty` a broken or empty result text, `latency` a delay before the real answer, and
//! `inject` the payload appended to the real result's text.

use super::service::ToolReply;
use proctor_core::faults::FaultKind;
use serde_json::{Value, json};
use std::time::Duration;

/// What a fault does before the backend runs: `Some(reply)` replaces the call's answer
/// (the backend is not called), `None` lets the backend answer (after a latency's delay).
pub async fn before(fault: &FaultKind) -> Option<ToolReply> {
    match fault {
        FaultKind::Error { message } => Some(tool_error(json!({"error": message}))),
        FaultKind::Timeout { ms } => {
            tokio::time::sleep(Duration::from_millis(*ms)).await;
            Some(tool_error(
                json!({"error": format!("timed out after {ms} ms")}),
            ))
        }
        FaultKind::Latency { ms } => {
            tokio::time::sleep(Duration::from_millis(*ms)).await;
            None
        }
        FaultKind::RateLimit {
            retry_after_s,
            message,
        } => Some(tool_error(
            json!({"error": message, "retry_after_s": retry_after_s}),
        )),
        FaultKind::Malformed | FaultKind::Empty | FaultKind::Inject { .. } => None,
    }
}

/// What a fault does to the backend's answer.
pub fn after(fault: &FaultKind, reply: ToolReply) -> ToolReply {
    let text_of = |reply: &ToolReply| match reply {
        ToolReply::Result { value, .. } => value.to_string(),
        ToolReply::Text { text, .. } => text.clone(),
        ToolReply::Refused(message) => message.clone(),
    };
    match fault {
        FaultKind::Malformed => {
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
        FaultKind::Empty => ToolReply::Text {
            text: String::new(),
            is_error: false,
        },
        FaultKind::Inject { payload } => ToolReply::Text {
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
            before(&FaultKind::Error {
                message: "upstream unavailable".into()
            })
            .await,
            Some(tool_error(json!({"error": "upstream unavailable"})))
        );
        assert_eq!(
            before(&FaultKind::RateLimit {
                retry_after_s: 3,
                message: "slow down".into()
            })
            .await,
            Some(tool_error(
                json!({"error": "slow down", "retry_after_s": 3})
            ))
        );
        assert_eq!(
            before(&FaultKind::Timeout { ms: 5 }).await,
            Some(tool_error(json!({"error": "timed out after 5 ms"})))
        );
        assert_eq!(before(&FaultKind::Latency { ms: 1 }).await, None);
        assert_eq!(
            after(&FaultKind::Malformed, real()),
            ToolReply::Text {
                text: "{\"order_id\":\"".into(),
                is_error: false
            }
        );
        assert_eq!(
            after(&FaultKind::Empty, real()),
            ToolReply::Text {
                text: String::new(),
                is_error: false
            }
        );
        assert_eq!(
            after(
                &FaultKind::Inject {
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
