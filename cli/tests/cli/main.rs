//! End-to-end tests of the `proctor` binary, one module per command.

mod calibrate;
mod common;
mod compare;
mod grade;
mod ledger;
mod run;
mod traces;
