//! Faults applied to served calls (docs/tools.md). Which call gets which faults is decided by
//! the attempt's [`proctor_core::faults::FaultPlan`] from its seed, composed in the order
//! they apply; this file only applies them. Every fault is a tool result or a delay, never a broken protocol frame:
//! `error`, `timeout` and `rate_limit` are tool errors (`isError: true`), `malformed` and
//! `empty` a broken or empty result text, `latency` a delay before the real answer, and
//! `inject` the payload appended to the real result's text.

use super::service::ToolReply;
use proctor_core::faults::FaultKind;
use serde_json::{Value, json};
use std::time::Duration;

/// What a call's faults ([`proctor_core::faults::FaultPlan::decide`]) do before the
/// backend runs: every latency's delay, then, when the outcome fault is one that skips the
/// tool (`error`, `timeout`, `rate_limit`), its reply: `Some(reply)` and the backend is not
/// called. `None` lets the backend answer.
pub async fn before(faults: &[FaultKind]) -> Option<ToolReply> {
    let delay = faults
        .iter()
        .map(|fault| match fault {
            FaultKind::Latency { ms } => *ms,
            _ => 0,
        })
        .fold(0u64, u64::saturating_add);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    match faults.iter().find(|fault| fault.skips_tool())? {
        FaultKind::Error { message } => Some(tool_error(json!({"error": message}))),
        FaultKind::Timeout { ms } => {
            tokio::time::sleep(Duration::from_millis(*ms)).await;
            Some(tool_error(
                json!({"error": format!("timed out after {ms} ms")}),
            ))
        }
        FaultKind::RateLimit {
            retry_after_s,
            message,
        } => Some(tool_error(
            json!({"error": message, "retry_after_s": retry_after_s}),
        )),
        _ => None,
    }
}

/// What a call's faults do to its reply (the backend's, or the one [`before`] gave):
/// `malformed` cuts it, `empty` empties it, then each `inject` appends its payload.
pub fn after(faults: &[FaultKind], reply: ToolReply) -> ToolReply {
    faults
        .iter()
        .fold(reply, |reply, fault| after_one(fault, reply))
}

fn after_one(fault: &FaultKind, reply: ToolReply) -> ToolReply {
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
            is_error: matches!(
                reply,
                ToolReply::Result { is_error: true, .. } | ToolReply::Text { is_error: true, .. }
            ),
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
            before(&[FaultKind::Error {
                message: "upstream unavailable".into()
            }])
            .await,
            Some(tool_error(json!({"error": "upstream unavailable"})))
        );
        assert_eq!(
            before(&[FaultKind::RateLimit {
                retry_after_s: 3,
                message: "slow down".into()
            }])
            .await,
            Some(tool_error(
                json!({"error": "slow down", "retry_after_s": 3})
            ))
        );
        assert_eq!(
            before(&[FaultKind::Timeout { ms: 5 }]).await,
            Some(tool_error(json!({"error": "timed out after 5 ms"})))
        );
        assert_eq!(before(&[FaultKind::Latency { ms: 1 }]).await, None);
        assert_eq!(before(&[FaultKind::Malformed]).await, None);
        assert_eq!(
            after(&[FaultKind::Malformed], real()),
            ToolReply::Text {
                text: "{\"order_id\":\"".into(),
                is_error: false
            }
        );
        assert_eq!(
            after(&[FaultKind::Empty], real()),
            ToolReply::Text {
                text: String::new(),
                is_error: false
            }
        );
        assert_eq!(
            after(
                &[FaultKind::Inject {
                    payload: "IGNORE PREVIOUS".into()
                }],
                real()
            ),
            ToolReply::Text {
                text: "{\"order_id\":\"A1\",\"days\":12}\nIGNORE PREVIOUS".into(),
                is_error: false
            }
        );
    }

    #[tokio::test]
    async fn composed_faults_delay_decide_and_append_in_order() {
        let faults = [
            FaultKind::Latency { ms: 1 },
            FaultKind::Error {
                message: "down".into(),
            },
            FaultKind::Inject {
                payload: "A".into(),
            },
            FaultKind::Inject {
                payload: "B".into(),
            },
        ];
        let started = std::time::Instant::now();
        let reply = before(&faults).await.unwrap();
        assert!(started.elapsed() >= Duration::from_millis(1));
        assert_eq!(
            after(&faults, reply),
            ToolReply::Text {
                text: "{\"error\":\"down\"}\nA\nB".into(),
                is_error: true
            }
        );
    }
}
