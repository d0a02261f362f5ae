//! proctor-ledger: turns the token usage that agents and the judge report into money.
//!
//! The crate is synchronous and offline. When complete it holds five parts (DESIGN 6.2, 6.3):
//!
//! | part | status | where |
//! |------|--------|-------|
//! | usage normalisation: any provider's usage object → one record of disjoint buckets | **done** | [`normalise`], [`normalise_all`], [`TokenCounts`] |
//! | cost of one record at given per-bucket prices, as an exact decimal | **done** | [`cost_usd`], [`BucketPrices`] |
//! | price table (TOML, effective-dated rows, long-context tiers, batch multipliers, LiteLLM JSON) | not yet | |
//! | ledger CSV (one appended row per attempt, role and model) | not yet | |
//! | period reports (cost per success by ISO week / month / day) and the SVG chart | not yet | |
//!
//! # Buckets
//!
//! A [`TokenCounts`] splits one call's tokens into buckets that never overlap, so summing
//! buckets never double-counts: uncached input, cache read, cache write (5 minutes), cache
//! write (1 hour) and output. Reasoning ("thinking") tokens are billed as output and are
//! therefore *inside* `output_tokens`; `reasoning_tokens` repeats them for reporting only
//! and is never priced on its own.
//!
//! The trap the normaliser exists for: Anthropic counts cache reads and writes *outside*
//! `input_tokens`, while OpenAI and Gemini count cached tokens *inside* their prompt count.
//! See the [`usage`] module for every shape and the choices made for ambiguous objects.
//!
//! # Money
//!
//! Money is [`rust_decimal::Decimal`], never a float; nothing here rounds. Rounding happens
//! only when a value is written out.

pub mod cost;
mod tokens;
pub mod usage;

pub use cost::{BucketPrices, cost_usd};
pub use tokens::TokenCounts;
pub use usage::{Usage, UsageError, UsageShape, normalise, normalise_all};
