//! The whole comparison: pairing, the suite difference and its tests, the verdict, and the
//! secondary differences (pass^k, cost per success, mean steps).

use super::CompareError;
use super::attacks::{AttackDeltas, attack_deltas};
use super::difference::{ClusteredDifference, clustered_difference};
use super::mcnemar::{McNemar, mcnemar};
use super::pairing::{Change, PairedTask, Ungradable, pair};
use super::power::{minimum_detectable_effect, tasks_to_detect};
use super::side::{SideTally, TaskTally};
use super::sign_flip::sign_flip_p;
use super::verdict::{Verdict, verdict};
use crate::stats::pass_hat_k;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde::Serialize;

/// The default `--margin`: a drop of up to 5 percentage points may hide behind "no regression".
pub const DEFAULT_MARGIN: f64 = 0.05;

/// How far the two files may differ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareOptions {
    /// The largest drop that still counts as "no regression", in [0, 1).
    pub margin: f64,
    /// Compare files graded against different task files, on their shared task ids.
    pub allow_different_tasks: bool,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            margin: DEFAULT_MARGIN,
            allow_different_tasks: false,
        }
    }
}

/// Whether both files were graded against the same task files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskFiles {
    /// Both carry the same task-file digest.
    Same,
    /// Only with `allow_different_tasks`.
    Different,
    /// A file without digests (older writers): the tasks are matched by id, unchecked.
    Unknown,
}

/// One file's metrics over the compared tasks (the tasks both files graded).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideSummary {
    /// The result file, as given.
    pub file: String,
    /// The agent version label its lines carry, when they carry one.
    pub label: Option<String>,
    /// The digest of the task file it was graded against, when recorded.
    pub task_digest: Option<String>,
    /// Every task in the file, compared or not.
    pub tasks_in_file: u64,
    /// Attempts on the compared tasks.
    pub attempts: u64,
    /// Attempts that passed.
    pub passed: u64,
    /// Attempts that failed.
    pub failed: u64,
    /// Left out of every rate.
    pub ungraded: u64,
    /// Passed over graded attempts, pooled.
    pub pass_rate: f64,
    /// The mean over tasks of c/n: every task weighs the same. Δ is the difference of these.
    pub pass_at_1: f64,
    /// pass^k at the comparison's `k`.
    pub pass_hat_k: f64,
    /// Spend divided by successes.
    pub cost_per_success: CostPerSuccess,
    /// All spend on the compared tasks.
    pub total_cost: TotalCost,
    /// Model calls without a price, left out of the USD figures.
    pub unpriced_calls: u64,
    /// Mean steps of the passed attempts; empty when none passed.
    pub mean_steps_success: Option<f64>,
}

/// Spend divided by successes. Its own type rather than the report's, so that a comparison
/// keeps to the two numbers every result file has (all spend in USD, and tokens).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostPerSuccess {
    /// Empty when nothing was priced or nothing succeeded.
    #[serde(with = "rust_decimal::serde::str_option")]
    pub usd: Option<Decimal>,
    /// Empty when nothing succeeded.
    pub tokens: Option<f64>,
}

/// All spend, failed and ungraded attempts included.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TotalCost {
    /// Empty when nothing was priced.
    #[serde(with = "rust_decimal::serde::str_option")]
    pub usd: Option<Decimal>,
    /// All tokens, input and output.
    pub tokens: u64,
}

/// new − old of cost per success; each part is empty when either side's is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CostPerSuccessDelta {
    /// new − old in USD.
    #[serde(with = "rust_decimal::serde::str_option")]
    pub usd: Option<Decimal>,
    /// new/old − 1.
    pub usd_relative: Option<f64>,
    /// new − old in tokens.
    pub tokens: Option<f64>,
    /// new/old − 1.
    pub tokens_relative: Option<f64>,
}

/// Everything `proctor compare` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The OLD file's metrics.
    pub old: SideSummary,
    /// The NEW file's metrics.
    pub new: SideSummary,
    /// Whether both were graded against the same task files.
    pub task_files: TaskFiles,
    /// The margin the verdict was judged against.
    pub margin: f64,
    /// Tasks compared: in both files, with graded attempts in both.
    pub tasks: u64,
    /// The k of pass^k: the fewest graded attempts of any compared task on either side.
    pub k: u64,
    /// True when every compared task has exactly `k` graded attempts on both sides.
    pub equal_attempts: bool,
    /// Tasks that pass less often in NEW, by id.
    pub regressed: Vec<String>,
    /// Tasks that pass more often in NEW, by id.
    pub fixed: Vec<String>,
    /// Tasks with the same pass rate on both sides, by id.
    pub tied: Vec<String>,
    /// Tasks only one file holds, left out.
    pub only_old: Vec<String>,
    /// Tasks only NEW holds, left out.
    pub only_new: Vec<String>,
    /// Tasks in both files without a graded attempt on some side, left out.
    pub ungradable: Vec<Ungradable>,
    /// Δ = new − old of the pass rate (mean over tasks), clustered by task.
    pub delta: ClusteredDifference,
    /// Exact sign-flip p of Δ; `None` above 20 tasks.
    pub sign_flip_p: Option<f64>,
    /// Only when every task has one graded attempt on each side.
    pub mcnemar: Option<McNemar>,
    /// Regression, no regression, or inconclusive at this margin.
    pub verdict: Verdict,
    /// The drop this comparison would detect with 80% power; beside the verdict.
    pub mde: Option<f64>,
    /// Tasks needed for an MDE equal to the margin, at this spread.
    pub tasks_for_margin: Option<u64>,
    /// Δ of pass^k (same k both sides), clustered by task.
    pub pass_hat_k_delta: ClusteredDifference,
    /// new − old of cost per success.
    pub cost_per_success_delta: CostPerSuccessDelta,
    /// new − old of the mean steps of passed attempts; empty when either side has none.
    pub mean_steps_success_delta: Option<f64>,
    /// Sorted by task id.
    pub per_task: Vec<PairedTask>,
    /// With attack variants on both sides (docs/tools.md): Δ of utility, utility under attack
    /// and attack success; not written otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attacks: Option<AttackDeltas>,
}

/// Compares two tallied files.
pub fn compare(
    old: SideTally,
    new: SideTally,
    options: &CompareOptions,
) -> Result<Comparison, CompareError> {
    if !(0.0..1.0).contains(&options.margin) {
        return Err(CompareError::Margin(options.margin));
    }
    for side in [&old, &new] {
        if side.tasks.is_empty() {
            return Err(CompareError::Empty {
                side: side.side,
                file: side.file.clone(),
            });
        }
    }
    let task_files = match (&old.task_digest, &new.task_digest) {
        (Some(a), Some(b)) if a == b => TaskFiles::Same,
        (Some(a), Some(b)) => {
            if !options.allow_different_tasks {
                return Err(CompareError::DifferentTasks {
                    old_file: old.file.clone(),
                    new_file: new.file.clone(),
                    old: a.clone(),
                    new: b.clone(),
                });
            }
            TaskFiles::Different
        }
        _ => TaskFiles::Unknown,
    };
    let pairing = pair(&old, &new);
    if pairing.tasks.is_empty() {
        return Err(CompareError::NoSharedTask {
            old_file: old.file.clone(),
            new_file: new.file.clone(),
            old_tasks: task_list(&old),
            new_tasks: task_list(&new),
        });
    }
    let tasks = pairing.tasks;
    let d: Vec<f64> = tasks.iter().map(|t| t.delta).collect();
    let delta = clustered_difference(&d).expect("at least one task is paired");
    let k = tasks
        .iter()
        .map(|t| t.old.graded.min(t.new.graded))
        .min()
        .expect("at least one task is paired");
    let equal_attempts = tasks.iter().all(|t| t.old.graded == k && t.new.graded == k);
    let names = |change: Change| -> Vec<String> {
        tasks
            .iter()
            .filter(|t| t.change == change)
            .map(|t| t.task.clone())
            .collect()
    };
    let (regressed, fixed, tied) = (
        names(Change::Regressed),
        names(Change::Fixed),
        names(Change::Tied),
    );
    let mcnemar =
        (equal_attempts && k == 1).then(|| mcnemar(regressed.len() as u64, fixed.len() as u64));

    let mut hat_old = Vec::with_capacity(tasks.len());
    let mut hat_new = Vec::with_capacity(tasks.len());
    for t in &tasks {
        hat_old.push(pass_hat_k(t.old.graded, t.old.passed, k)?);
        hat_new.push(pass_hat_k(t.new.graded, t.new.passed, k)?);
    }
    let hat_d: Vec<f64> = hat_new.iter().zip(&hat_old).map(|(n, o)| n - o).collect();
    let pass_hat_k_delta = clustered_difference(&hat_d).expect("at least one task is paired");

    let ids: Vec<&str> = tasks.iter().map(|t| t.task.as_str()).collect();
    let old_summary = summarise(&old, &ids, mean(&hat_old))?;
    let new_summary = summarise(&new, &ids, mean(&hat_new))?;
    let cost_per_success_delta =
        cost_delta(&old_summary.cost_per_success, &new_summary.cost_per_success);
    let mean_steps_success_delta = match (
        old_summary.mean_steps_success,
        new_summary.mean_steps_success,
    ) {
        (Some(o), Some(n)) => Some(n - o),
        _ => None,
    };
    let margin = options.margin;
    let attacks = attack_deltas(&old, &new, &tasks);
    Ok(Comparison {
        attacks,
        task_files,
        margin,
        tasks: tasks.len() as u64,
        k,
        equal_attempts,
        regressed,
        fixed,
        tied,
        only_old: pairing.only_old,
        only_new: pairing.only_new,
        ungradable: pairing.ungradable,
        sign_flip_p: sign_flip_p(&d),
        mcnemar,
        verdict: verdict(delta.ci, margin),
        mde: minimum_detectable_effect(&delta),
        tasks_for_margin: tasks_to_detect(delta.sd, margin),
        delta,
        pass_hat_k_delta,
        cost_per_success_delta,
        mean_steps_success_delta,
        old: old_summary,
        new: new_summary,
        per_task: tasks,
    })
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// Up to ten task ids of a file, for an error message.
fn task_list(side: &SideTally) -> String {
    const SHOWN: usize = 10;
    let mut names: Vec<String> = side
        .tasks
        .iter()
        .take(SHOWN)
        .map(|(id, t)| {
            if t.graded() == 0 {
                format!("{id} (no graded attempt)")
            } else {
                id.clone()
            }
        })
        .collect();
    if side.tasks.len() > SHOWN {
        names.push(format!("and {} more", side.tasks.len() - SHOWN));
    }
    names.join(", ")
}

/// One side's metrics over the compared task ids.
fn summarise(side: &SideTally, ids: &[&str], pass_hat_k: f64) -> Result<SideSummary, CompareError> {
    let mut total = TaskTally::default();
    let mut rate_sum = 0.0;
    for id in ids {
        let t = &side.tasks[*id];
        if !total.absorb(t) {
            return Err(CompareError::Overflow {
                side: side.side,
                file: side.file.clone(),
                at: format!("the sum over tasks up to task `{id}`"),
            });
        }
        rate_sum += t.passed as f64 / t.graded() as f64;
    }
    let passed = total.passed;
    Ok(SideSummary {
        file: side.file.clone(),
        label: side.label.clone(),
        task_digest: side.task_digest.clone(),
        tasks_in_file: side.tasks.len() as u64,
        attempts: total.graded() + total.ungraded,
        passed,
        failed: total.failed,
        ungraded: total.ungraded,
        pass_rate: passed as f64 / total.graded() as f64,
        pass_at_1: rate_sum / ids.len() as f64,
        pass_hat_k,
        cost_per_success: CostPerSuccess {
            usd: total
                .spend_usd
                .filter(|_| passed > 0)
                .map(|usd| usd / Decimal::from(passed)),
            tokens: (passed > 0).then(|| total.tokens as f64 / passed as f64),
        },
        total_cost: TotalCost {
            usd: total.spend_usd,
            tokens: total.tokens,
        },
        unpriced_calls: total.unpriced_calls,
        mean_steps_success: (passed > 0).then(|| total.success_steps as f64 / passed as f64),
    })
}

fn cost_delta(old: &CostPerSuccess, new: &CostPerSuccess) -> CostPerSuccessDelta {
    let relative = |o: f64, n: f64| (o > 0.0).then(|| n / o - 1.0);
    let (usd, usd_relative) = match (old.usd, new.usd) {
        (Some(o), Some(n)) => (
            Some(n - o),
            o.to_f64().zip(n.to_f64()).and_then(|(o, n)| relative(o, n)),
        ),
        _ => (None, None),
    };
    let (tokens, tokens_relative) = match (old.tokens, new.tokens) {
        (Some(o), Some(n)) => (Some(n - o), relative(o, n)),
        _ => (None, None),
    };
    CostPerSuccessDelta {
        usd,
        usd_relative,
        tokens,
        tokens_relative,
    }
}
