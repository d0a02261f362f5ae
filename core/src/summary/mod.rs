//! Suite summaries: streaming accumulation of result lines and the metrics of DESIGN 3.6.

mod accumulate;
mod metrics;

pub use accumulate::SummaryBuilder;
pub use metrics::{CostPerSuccess, GridCell, ReasonCount, Summary, TaskSummary, TotalCost};
