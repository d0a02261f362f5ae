//! One attempt's faults: which call of which tool fails, and how.

use super::draw::fault_draw;
use super::fired::FaultMissed;
use super::kind::FaultKind;
use super::spec::{FaultSpec, FaultTrigger};
use std::collections::HashMap;

/// A task's faults bound to one attempt's seed. Deciding is pure: the same plan gives
/// the same answer for the same call however often, and in whatever order, it is asked.
#[derive(Debug, Clone)]
pub struct FaultPlan {
    faults: Vec<FaultSpec>,
    attempt_seed: u64,
}

impl FaultPlan {
    /// The plan of one attempt; `attempt_seed` fixes which probabilistic faults fire.
    pub fn new(faults: &[FaultSpec], attempt_seed: u64) -> Self {
        FaultPlan {
            faults: faults.to_vec(),
            attempt_seed,
        }
    }

    /// True when the task has no faults at all (nothing to decide).
    pub fn is_empty(&self) -> bool {
        self.faults.is_empty()
    }

    /// The faults that apply to the `call_number`-th call (from 1) of `tool` in this
    /// attempt, in the order they apply: every `latency` that fires (their delays add
    /// up), then the first firing fault that changes the outcome (`error`, `timeout`,
    /// `rate_limit`, `malformed`, `empty`), then every firing `inject` (each appends its
    /// payload). A fault fires when its glob matches the tool and its trigger holds (a
    /// `calls:` number, or an independent draw per fault); a second outcome fault on the
    /// same call does not apply, and is not listed.
    pub fn decide(&self, tool: &str, call_number: u32) -> Vec<&FaultKind> {
        let firing: Vec<&FaultKind> = self
            .faults
            .iter()
            .enumerate()
            .filter(|(_, fault)| fault.matches(tool))
            .filter(|(index, fault)| match &fault.trigger {
                FaultTrigger::Calls(calls) => calls.contains(&call_number),
                FaultTrigger::Probability(p) => {
                    fault_draw(self.attempt_seed, *index, tool, call_number) < *p
                }
            })
            .map(|(_, fault)| &fault.kind)
            .collect();
        let latencies = firing
            .iter()
            .filter(|kind| matches!(kind, FaultKind::Latency { .. }));
        let outcome = firing.iter().find(|kind| kind.changes_outcome());
        let injects = firing
            .iter()
            .filter(|kind| matches!(kind, FaultKind::Inject { .. }));
        latencies.chain(outcome).chain(injects).copied().collect()
    }

    /// The `calls:` faults whose call never came, given how often each tool was called.
    pub fn missed(&self, calls_per_tool: &HashMap<String, u32>) -> Vec<FaultMissed> {
        let mut missed = Vec::new();
        for fault in &self.faults {
            let FaultTrigger::Calls(calls) = &fault.trigger else {
                continue;
            };
            let most = calls_per_tool
                .iter()
                .filter(|(tool, _)| fault.matches(tool))
                .map(|(_, count)| *count)
                .max()
                .unwrap_or(0);
            missed.extend(
                calls
                    .iter()
                    .filter(|call| **call > most)
                    .map(|call| FaultMissed {
                        tool: fault.tool.clone(),
                        kind: fault.kind.name().to_owned(),
                        call: *call,
                    }),
            );
        }
        missed
    }
}
