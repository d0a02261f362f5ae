//! proctor-ledger: turns the token usage that agents and the judge report into money, and
//! keeps the ledger of what every attempt cost (docs/cost.md, 6.3).
//!
//! The crate is synchronous and offline:
//!
//! | part | where |
//! |------|-------|
//! | usage normalisation: any provider's usage object → one record of disjoint buckets | [`normalise`], [`normalise_all`], [`normalise_compact`], [`TokenCounts`] |
//! | cost of one record at given per-bucket prices, as an exact decimal | [`cost_usd`], [`BucketPrices`] |
//! | price tables: TOML or LiteLLM JSON, effective-dated rows, long-context tiers, service-tier multipliers, a dated default | [`prices`] |
//! | pricing a call at its time, and a whole attempt into a result line's `cost` | [`pricing`] |
//! | the ledger CSV: rows of a result line, locked appends without duplicates, a streaming reader | [`book`] |
//! | period reports (cost per success by ISO week / month / day) | [`report`] |
//! | the SVG chart of a report | [`chart`] |
//! | re-pricing a ledger explicitly | [`recost`] |
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
//! only when a value is written out (reports: 6 decimals). A call with no price is
//! *unpriced*: its cost is empty and it is counted, never 0.

#![warn(missing_docs)]

pub mod book;
pub mod chart;
pub mod cost;
pub mod prices;
pub mod pricing;
pub mod recost;
pub mod report;
pub mod time;
mod tokens;
pub mod usage;

pub use cost::{BucketPrices, cost_usd};
pub use tokens::TokenCounts;
pub use usage::{Usage, UsageError, UsageShape, normalise, normalise_all, normalise_compact};
