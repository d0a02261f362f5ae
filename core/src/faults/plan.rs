//! One attempt's faults: which call of which tool fails, and how.

use super::draw::fault_draw;
use super::kind::FaultKind;
use super::spec::{FaultSpec, FaultTrigger};

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

    /// The fault for the `call_number`-th call (from 1) of `tool` in this attempt, if
    /// any: the first fault whose glob matches the tool and whose trigger fires. A
    /// `probability` fault that does not fire lets the next matching fault decide.
    pub fn decide(&self, tool: &str, call_number: u32) -> Option<&FaultKind> {
        self.faults
            .iter()
            .enumerate()
            .filter(|(_, fault)| fault.matches(tool))
            .find(|(index, fault)| match &fault.trigger {
                FaultTrigger::Calls(calls) => calls.contains(&call_number),
                FaultTrigger::Probability(p) => {
                    fault_draw(self.attempt_seed, *index, tool, call_number) < *p
                }
            })
            .map(|(_, fault)| &fault.kind)
    }
}
