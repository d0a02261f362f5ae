//! Statistics (docs/metrics.md, 6.1, 7).
//!
//! Pure functions, no I/O: the report, compare and calibrate commands build their numbers from
//! these, so each formula is written and tested once.

mod binomial;
mod error;
mod fisher;
mod interval;
mod moments;
mod order_free_sum;
mod pass_k;
mod student_t;
mod student_t_power;
mod wilson;

pub(crate) use binomial::binomial_cdf;
pub use error::StatsError;
pub(crate) use fisher::fisher_exact;
pub use interval::{Interval, Z95};
pub(crate) use moments::mean_sd;
pub use order_free_sum::OrderFreeSum;
pub(crate) use pass_k::{mean_pass_at_k, mean_pass_hat_k};
pub use pass_k::{pass_at_k, pass_hat_k};
pub(crate) use student_t::t_critical_95;
pub use student_t_power::Z80;
pub(crate) use student_t_power::t_quantile_80;
pub use wilson::wilson;
