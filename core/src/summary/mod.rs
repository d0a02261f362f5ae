//! Suite summaries: streaming accumulation of result lines, the metrics of docs/metrics.md, and
//! one scorecard per agent (docs/metrics.md).

mod accumulate;
mod metrics;
mod safety;
mod scorecards;

pub use accumulate::{Counted, SummaryBuilder};
pub use metrics::{
    AttackFigures, CostPerSuccess, GridCell, ReasonCount, Summary, TaskSummary, TotalCost,
};
pub use safety::SafetyCount;
pub use scorecards::{
    ALL_ATTACKS, NO_GROUP, Scorecard, ScorecardBuilder, ScorecardOptions, Scorecards, Split,
};
