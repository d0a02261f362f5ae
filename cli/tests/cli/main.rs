//! End-to-end tests of the `proctor` binary, one module per command.

mod common;
mod grade;
mod run;
