//! End-to-end tests of the `proctor` binary, one module per command.

mod bad_inputs;
mod calibrate;
mod chromium;
mod common;
mod compare;
mod contained_helpers;
mod containment;
mod disk_limit;
mod docs;
mod evidence;
mod first_hour;
mod grade;
mod grade_paths;
mod hidden_files;
mod honest_agents;
mod html_report;
mod init;
mod judge_concurrency;
mod ledger;
mod run;
mod scorecards;
mod served_limits;
mod tool_faults;
mod tools;
mod traces;
mod variants;
