//! `proctor`: run, grade, judge, compare and cost AI agents.

mod args;
mod commands;
mod details;
mod duplicates;
mod exit;
mod html;
mod judging;
mod ledger_file;
mod lock_holder;
mod loopback;
mod mcp;
mod otlp;
mod outcome_log;
mod outputs;
mod problems;
mod render;
mod results_file;
mod run;
mod run_record;
mod settle;
mod usage_cost;

use clap::Parser;
use std::process::ExitCode;

/// Grading threads allocate result lines that the writing thread frees; mimalloc frees
/// across threads without the lock contention of the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let words: Vec<String> = std::env::args().skip(1).collect();
    if words.first().map(String::as_str) == Some(run::isolation::helper_words::ENTRY_COMMAND) {
        // An agent entering its containment: becomes the agent, or says why not.
        let error = run::isolation::entry::enter(&words[1..]).unwrap_err();
        eprintln!("proctor: {error:#}");
        return ExitCode::from(exit::INFRASTRUCTURE);
    }
    if words.first().map(String::as_str) == Some(run::isolation::forwarder::FORWARD_COMMAND) {
        // Inside a `network: none` namespace: starts the forwarder, then becomes the agent.
        let error = run::isolation::forwarder::enter(&words[1..]).unwrap_err();
        eprintln!("proctor: {error:#}");
        return ExitCode::from(exit::INFRASTRUCTURE);
    }
    // Descriptors proctor's parent left open never reach an agent.
    run::descriptors::close_inherited_descriptors();
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let code = if error.use_stderr() {
                exit::BAD_INPUT
            } else {
                exit::SUCCESS
            };
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    exit::exit_code(commands::dispatch(cli.command))
}
