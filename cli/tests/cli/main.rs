//! End-to-end tests of the `proctor` binary, one module per command.

mod calibrate;
mod common;
mod compare;
mod containment;
mod grade;
mod judge_concurrency;
mod ledger;
mod run;
mod traces;
