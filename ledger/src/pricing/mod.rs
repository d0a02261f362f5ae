//! Pricing calls: the row in force at a call's time, long-context tiers and service-tier
//! multipliers ([`quote`]), and an attempt's whole [`Cost`](proctor_core::result::Cost)
//! ([`price_attempt`]).

mod attempt;
mod quote;

pub use attempt::{CostError, PricedAttempt, price_attempt};
pub use quote::{Call, LONG_CONTEXT_SUFFIX, Quote, quote};
