//! proctor-core: the task and outcome model, normalisation, deterministic checks,
//! trajectory rules, end-state checks, statistics and the versioned on-disk formats.
//!
//! Everything here is synchronous and offline: no network, no async runtime. The
//! command line (`proctor`) and the judge build on these types.

#![warn(missing_docs)]

pub mod agent_file;
pub mod calibrate;
pub(crate) mod closest;
pub mod compact_json;
pub mod compare;
pub mod end_state;
pub(crate) mod fast_hash;
pub mod faults;
pub mod grade;
pub mod normalise;
pub mod outcome;
pub mod result;
pub mod rules;
#[cfg(test)]
mod serde_names;
pub(crate) mod short_text;
pub mod stats;
pub mod summary;
pub mod task;
pub mod tools;
pub mod trace;
pub mod utf8_text;
