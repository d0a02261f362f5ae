//! End-to-end tests of the `proctor` binary, one module per command.

mod calibrate;
mod common;
mod compare;
mod docs;
mod first_hour;
mod grade;
mod init;
mod ledger;
mod run;
mod scorecards;
