//! End-to-end tests of the `proctor` binary, one module per command.

mod calibrate;
mod chromium;
mod common;
mod compare;
mod containment;
mod docs;
mod escapes;
mod first_hour;
mod grade;
mod grade_paths;
mod html_report;
mod init;
mod judge_concurrency;
mod ledger;
mod run;
mod scorecards;
mod tool_faults;
mod tools;
mod traces;
mod variants;
