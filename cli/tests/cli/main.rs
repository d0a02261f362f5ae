//! End-to-end tests of the `proctor` binary, one module per command.

mod calibrate;
mod chromium;
mod common;
mod compare;
mod containment;
mod grade;
mod html_report;
mod judge_concurrency;
mod ledger;
mod run;
