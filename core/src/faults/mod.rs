//! Seeded faults at the tool layer (docs/tools.md): what a task's `faults:` say, and which
//! call of which tool a given attempt fails. The draw depends only on the attempt seed,
//! the fault's position, the tool and the call's number, so a rerun, a `--resume` or a
//! shard of the same attempt fires exactly the same faults.

mod draw;
mod fired;
mod kind;
mod plan;
mod spec;

pub use fired::{FaultFired, FaultMissed};
pub use kind::FaultKind;
pub use plan::FaultPlan;
pub use spec::{FaultSpec, FaultSpecError, FaultTrigger};

#[cfg(test)]
mod tests;
