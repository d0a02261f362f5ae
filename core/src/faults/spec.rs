//! A fault as a task file writes it: `{tool: GLOB, kind, probability | calls: [N...],
//! message?, ms?, retry_after_s?, payload?}`, validated when the task is loaded.

use super::kind::{
    DEFAULT_ERROR_MESSAGE, DEFAULT_RETRY_AFTER_S, DEFAULT_TIMEOUT_MS, FaultKind, MAX_FAULT_MS,
};
use globset::{Glob, GlobMatcher};
use serde::{Deserialize, Serialize};

/// When a fault fires on a call of a tool its glob matches.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultTrigger {
    /// An independent draw per call: fires when the draw is below this.
    Probability(f64),
    /// The tool's calls with these numbers (from 1).
    Calls(Vec<u32>),
}

/// One entry of a task's (or a variant's) `faults:`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "RawFaultSpec", into = "RawFaultSpec")]
pub struct FaultSpec {
    /// The glob on tool names, as written.
    pub tool: String,
    /// Which matching calls it fires on.
    pub trigger: FaultTrigger,
    /// What it does to them.
    pub kind: FaultKind,
    matcher: GlobMatcher,
}

impl PartialEq for FaultSpec {
    fn eq(&self, other: &Self) -> bool {
        self.tool == other.tool && self.trigger == other.trigger && self.kind == other.kind
    }
}

impl FaultSpec {
    /// True when this fault's glob matches the tool's name. The simulated user's
    /// `ask_user` is hit only by a glob that spells it out: `*` means the task's tools, and
    /// the benchmark's user never fails (docs/tools.md, "Faults").
    pub fn matches(&self, tool: &str) -> bool {
        if tool == crate::tools::ASK_USER && !self.tool.contains(crate::tools::ASK_USER) {
            return false;
        }
        self.matcher.is_match(tool)
    }

    /// True when this fault's glob matches any of `tools`.
    pub fn matches_any(&self, tools: &[&str]) -> bool {
        tools.iter().any(|tool| self.matches(tool))
    }
}

/// Why a fault in a task file is refused; the message names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FaultSpecError(String);

fn refuse(message: impl Into<String>) -> FaultSpecError {
    FaultSpecError(message.into())
}

/// The fault as written; also how a [`FaultSpec`] is written back, so that the two
/// round-trip.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFaultSpec {
    tool: String,
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    probability: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    calls: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retry_after_s: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    payload: Option<String>,
}

impl From<FaultSpec> for RawFaultSpec {
    fn from(spec: FaultSpec) -> Self {
        let (probability, calls) = match spec.trigger {
            FaultTrigger::Probability(p) => (Some(p), None),
            FaultTrigger::Calls(calls) => (None, Some(calls)),
        };
        let mut raw = RawFaultSpec {
            tool: spec.tool,
            kind: spec.kind.name().to_owned(),
            probability,
            calls,
            message: None,
            ms: None,
            retry_after_s: None,
            payload: None,
        };
        match spec.kind {
            FaultKind::Error { message } => raw.message = Some(message),
            FaultKind::Timeout { ms } | FaultKind::Latency { ms } => raw.ms = Some(ms),
            FaultKind::RateLimit {
                retry_after_s,
                message,
            } => {
                raw.retry_after_s = Some(retry_after_s);
                raw.message = Some(message);
            }
            FaultKind::Inject { payload } => raw.payload = Some(payload),
            FaultKind::Malformed | FaultKind::Empty => {}
        }
        raw
    }
}

impl TryFrom<RawFaultSpec> for FaultSpec {
    type Error = FaultSpecError;

    fn try_from(raw: RawFaultSpec) -> Result<Self, FaultSpecError> {
        if raw.tool.trim().is_empty() {
            return Err(refuse(
                "`tool` must name a tool or a glob such as \"get_*\"",
            ));
        }
        let matcher = Glob::new(&raw.tool)
            .map_err(|e| refuse(format!("`tool`: {e}")))?
            .compile_matcher();
        let kind = build_kind(&raw)?;
        let trigger = match (raw.probability, raw.calls) {
            (Some(_), Some(_)) => {
                return Err(refuse("give either `probability` or `calls`, not both"));
            }
            (None, None) => {
                return Err(refuse(
                    "give `probability` (0 to 1, drawn per call) or `calls` (the tool's call numbers, from 1)",
                ));
            }
            (Some(p), None) => {
                if !(p.is_finite() && (0.0..=1.0).contains(&p)) {
                    return Err(refuse(format!(
                        "`probability` must be between 0 and 1, got {p}"
                    )));
                }
                FaultTrigger::Probability(p)
            }
            (None, Some(calls)) => {
                if calls.is_empty() {
                    return Err(refuse("`calls` must list at least one call number"));
                }
                if calls.contains(&0) {
                    return Err(refuse(
                        "`calls` counts a tool's calls from 1; 0 is not a call",
                    ));
                }
                FaultTrigger::Calls(calls)
            }
        };
        Ok(FaultSpec {
            tool: raw.tool,
            trigger,
            kind,
            matcher,
        })
    }
}

/// The kind and its parameters, with defaults. Each kind takes only its own parameters:
/// a `payload` on an `error` is a typo that would otherwise silently do nothing.
fn build_kind(raw: &RawFaultSpec) -> Result<FaultKind, FaultSpecError> {
    let kind = raw.kind.as_str();
    let allowed: &[&str] = match kind {
        "error" => &["message"],
        "timeout" | "latency" => &["ms"],
        "rate_limit" => &["retry_after_s", "message"],
        "inject" => &["payload"],
        "malformed" | "empty" => &[],
        other => {
            return Err(refuse(format!(
                "unknown fault kind `{other}` (expected one of {})",
                FaultKind::NAMES.join(", ")
            )));
        }
    };
    let given = [
        ("message", raw.message.is_some()),
        ("ms", raw.ms.is_some()),
        ("retry_after_s", raw.retry_after_s.is_some()),
        ("payload", raw.payload.is_some()),
    ];
    if let Some((field, _)) = given
        .iter()
        .find(|(field, present)| *present && !allowed.contains(field))
    {
        return Err(refuse(format!(
            "`{field}` does not apply to `{kind}` faults"
        )));
    }
    if let Some(ms) = raw.ms
        && ms > MAX_FAULT_MS
    {
        return Err(refuse(format!(
            "`ms` is at most {MAX_FAULT_MS} (10 minutes), got {ms}"
        )));
    }
    Ok(match kind {
        "error" => FaultKind::Error {
            message: raw
                .message
                .clone()
                .unwrap_or_else(|| DEFAULT_ERROR_MESSAGE.to_owned()),
        },
        "timeout" => FaultKind::Timeout {
            ms: raw.ms.unwrap_or(DEFAULT_TIMEOUT_MS),
        },
        "latency" => FaultKind::Latency {
            ms: raw
                .ms
                .ok_or_else(|| refuse("a `latency` fault needs `ms`, the delay"))?,
        },
        "rate_limit" => {
            let retry_after_s = raw.retry_after_s.unwrap_or(DEFAULT_RETRY_AFTER_S);
            FaultKind::RateLimit {
                retry_after_s,
                message: raw
                    .message
                    .clone()
                    .unwrap_or_else(|| format!("rate limited: retry after {retry_after_s} s")),
            }
        }
        "malformed" => FaultKind::Malformed,
        "empty" => FaultKind::Empty,
        // Only `inject` is left: the list above refused every other name.
        _ => FaultKind::Inject {
            payload: raw
                .payload
                .clone()
                .ok_or_else(|| refuse("an `inject` fault needs `payload`, the text appended"))?,
        },
    })
}
