//! Comparing two versions of an agent on the same tasks (docs/comparing.md): `proctor compare OLD NEW`.
//!
//! A stable pass rate can hide one task fixed and another broken, and a difference between two
//! versions needs many runs before anyone should trust it. So the comparison lists every task
//! that changed, and states the suite difference with an honest interval, a verdict, and the
//! smallest drop it could have seen.
//!
//! # What is computed
//!
//! - **Per task** ([`pair`]): c/n under each version, n being the task's graded attempts.
//!   A task is **regressed** when its pass rate dropped (c_new/n_new < c_old/n_old), **fixed**
//!   when it rose, **tied** when equal. With one attempt each, regressed is exactly "passed,
//!   now fails". Every drop counts, so with k = 5 a 4/5 → 3/5 is listed; the per-task two-sided
//!   Fisher exact p beside it (`fisher_exact`) says how easily
//!   noise alone does that.
//! - **Δ** (`clustered_difference`): the mean over tasks of (new rate − old rate), with
//!   SE = SD/√n over tasks (the task is the cluster) and a 95% interval Δ ± t₀.₉₇₅,ₙ₋₁·SE,
//!   clipped to [−1, 1]. Each task weighs the same however many attempts it has, so Δ is the
//!   difference of the two sides' `pass_at_1` (mean over tasks of c/n); the pooled pass rates
//!   are reported too and equal these when every task has the same number of attempts.
//! - **Exact sign-flip p** ([`sign_flip_p`]) for n ≤ 20 tasks; **McNemar exact** ([`mcnemar`])
//!   only when every compared task has exactly one graded attempt on each side (it then equals
//!   the sign-flip p).
//! - **Verdict** ([`verdict`]): `regression` if the interval's upper bound < 0, else `no
//!   regression` if its lower bound > −margin, else `inconclusive`, in that order, so a certain
//!   drop smaller than the margin is still a regression. A single task has no interval and is
//!   inconclusive. When every task's difference is the same (say, comparing a run with
//!   itself) the SD is 0 and the interval collapses to a point.
//! - **MDE** (`minimum_detectable_effect`): the true drop this comparison would call a
//!   regression with 80% power, (t₀.₉₇₅,df + t₀.₈₀,df)·SE with the observed SE (post hoc), printed
//!   beside the verdict; and `tasks_to_detect`, the number of tasks at which the MDE would
//!   equal the margin if per-task differences kept their spread.
//! - **Secondary differences**: pass^k with the same k on both sides (the fewest graded
//!   attempts of any compared task on either side, as in docs/metrics.md), clustered by task like Δ;
//!   cost per success (all spend on the compared tasks, failed and ungraded attempts included,
//!   over successes; in USD and tokens; empty when either side has no success or no price) and
//!   the mean steps of successful runs, as new − old.
//!
//! # Which tasks are compared
//!
//! - Tasks are matched by id. Both files must carry one task-file digest each and the same one;
//!   different digests are refused unless `allow_different_tasks`, and then the shared ids are
//!   compared and the report says so. Lines without a digest (older writers) are matched by id
//!   unchecked, reported as [`TaskFiles::Unknown`].
//! - A file must hold one version: a second `label` (a line with no label among labelled ones
//!   counts) is an error naming both attempts; so is a second digest within one file.
//! - Tasks only one file holds, and tasks without a graded attempt on a side, are left out and
//!   listed. Ungraded attempts are left out of c and n and counted per task and side.
//! - Tasks may have different numbers of attempts, old and new or task to task: rates are per
//!   task, so the difference is still defined; McNemar is then not reported.

mod attack_tally;
mod attacks;
mod comparison;
mod difference;
mod error;
mod mcnemar;
mod pairing;
mod power;
mod side;
mod sign_flip;
mod verdict;
mod which;

#[cfg(test)]
mod tests;

pub use attack_tally::AttackTally;
pub use attacks::{AttackDelta, AttackDeltas};
pub use comparison::{
    CompareOptions, Comparison, CostPerSuccess, CostPerSuccessDelta, DEFAULT_MARGIN, SideSummary,
    TaskFiles, TotalCost, compare,
};
pub use difference::ClusteredDifference;
pub use error::CompareError;
pub use mcnemar::{McNemar, mcnemar};
pub use pairing::{Change, PairedTask, Pairing, TaskCounts, Ungradable, pair};
pub use side::{SideBuilder, SideTally, TaskTally};
pub use sign_flip::{SIGN_FLIP_MAX_TASKS, sign_flip_p};
pub use verdict::{Verdict, verdict};
pub use which::Side;
