//! "Trajectory matches the trace": the differences between what an agent reported and
//! what its trace shows, step by step.

use crate::outcome::Step;

/// At most this many differences are listed; the count says how many there were.
const SHOWN: usize = 10;

/// What a reported trajectory is compared with, as the differences name it.
#[derive(Debug, Clone, Copy)]
pub struct Evidence {
    /// "the trace shows", "the recorded calls show".
    pub shows: &'static str,
    /// "the trace", "the recorded calls": `step 3: refund is in the trace only`.
    pub name: &'static str,
}

/// The agent's OpenTelemetry trace (docs/traces.md).
pub const TRACE: Evidence = Evidence {
    shows: "the trace shows",
    name: "the trace",
};
/// The tool calls proctor served and recorded (docs/tools.md).
pub const RECORDED_CALLS: Evidence = Evidence {
    shows: "the recorded calls show",
    name: "the recorded calls",
};

/// The differences between a reported trajectory and a traced one; empty when they agree.
/// Arguments are compared as JSON values (key order ignored), except on steps whose
/// arguments the trace did not capture (`uncaptured`, step numbers from 1).
#[must_use]
pub fn differences(reported: &[Step], traced: &[Step], uncaptured: &[u64]) -> Vec<String> {
    differences_from(reported, traced, uncaptured, TRACE)
}

/// [`differences`] against any evidence of what the agent did.
#[must_use]
pub fn differences_from(
    reported: &[Step],
    traced: &[Step],
    uncaptured: &[u64],
    evidence: Evidence,
) -> Vec<String> {
    let Evidence { shows, name } = evidence;
    let mut found = Vec::new();
    if reported.len() != traced.len() {
        found.push(format!(
            "reported {} tool calls, {shows} {}",
            reported.len(),
            traced.len()
        ));
    }
    for (index, (claim, fact)) in reported.iter().zip(traced).enumerate() {
        let step = index + 1;
        if claim.tool != fact.tool {
            found.push(format!(
                "step {step}: reported {}, {shows} {}",
                claim.tool, fact.tool
            ));
        } else if !uncaptured.contains(&(step as u64))
            && claim.args.to_value() != fact.args.to_value()
        {
            found.push(format!(
                "step {step}: {} reported with {}, {shows} {}",
                claim.tool, claim.args, fact.args
            ));
        }
    }
    let shorter = reported.len().min(traced.len());
    for (index, step) in traced.iter().enumerate().skip(shorter) {
        found.push(format!(
            "step {}: {} is in {name} only",
            index + 1,
            step.tool
        ));
    }
    for (index, step) in reported.iter().enumerate().skip(shorter) {
        found.push(format!(
            "step {}: {} is in the report only",
            index + 1,
            step.tool
        ));
    }
    if found.len() > SHOWN {
        let more = found.len() - SHOWN;
        found.truncate(SHOWN);
        found.push(format!("and {more} more"));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact_json::CompactJson;
    use serde_json::{Value, json};

    fn step(tool: &str, args: Value) -> Step {
        Step::call(tool, &args)
    }

    #[test]
    fn lists_what_differs() {
        let reported = vec![
            step("check", json!({"id": "A1"})),
            step("refund", json!({"id": "A1"})),
        ];
        let traced = vec![
            step("check", json!({"id": "A1"})),
            step("refund", json!({"id": "A2"})),
            step("refund", json!({"id": "A2"})),
        ];
        assert_eq!(
            differences(&reported, &traced, &[]),
            vec![
                "reported 2 tool calls, the trace shows 3",
                "step 2: refund reported with {\"id\":\"A1\"}, the trace shows {\"id\":\"A2\"}",
                "step 3: refund is in the trace only",
            ]
        );
        assert!(differences(&traced, &traced, &[]).is_empty());
        let mut blind = traced.clone();
        blind[1].args = CompactJson::null();
        assert_eq!(differences(&traced, &blind, &[2]), Vec::<String>::new());
    }
}
