//! RUN-ARGS of `proctor submit`: checked with `proctor run`'s own parser, so a typo fails at
//! submit rather than in every shard, and read for what the jobs need (docs/cluster.md).

use crate::args::RunArgs;
use crate::exit::{bad_input, bail_input};
use clap::{Args, FromArgMatches};
use std::path::PathBuf;

/// RUN-ARGS, checked, and what the scripts take from them.
#[derive(Debug)]
pub struct RunWords {
    /// The words as typed, `--opt=value` split in two, without `--run-id` (submit writes
    /// it once for every shard).
    pub words: Vec<String>,
    /// Where in `words` the value of `--out` is: each shard writes its own file instead.
    pub out_at: usize,
    /// `--out` as typed: the merged file.
    pub out: PathBuf,
    /// `--tasks` as typed.
    pub tasks: PathBuf,
    /// `--attempts`, given or the default: the merge checks each task has that many.
    pub attempts: u64,
    /// `--variants` as typed, for the merge.
    pub variants: Vec<String>,
    /// `--jobs`: attempts one shard runs at once.
    pub jobs: Option<u64>,
    /// `--max-memory` in bytes, per attempt.
    pub max_memory: Option<u64>,
    /// `--only` was given: the shards run some of the file's tasks.
    pub only: bool,
    /// `--run-id` when given.
    pub run_id: Option<String>,
}

/// Options RUN-ARGS cannot hold, with why: submit writes them itself, or N shards would
/// write one file at once.
const REFUSED: [(&str, &str); 4] = [
    (
        "--shard",
        "each array task runs its own --shard I/N (--shards N sets N)",
    ),
    (
        "--shard-count",
        "each array task runs its own --shard I/N (--shards N sets N)",
    ),
    (
        "--resume",
        "submit adds it, so that a requeued or rerun shard completes its file",
    ),
    (
        "--html",
        "every shard would write the same page; once merged: proctor report R.jsonl --html FILE",
    ),
];

/// Checks RUN-ARGS as `proctor run` would and reads them.
pub fn read(typed: &[String]) -> anyhow::Result<RunWords> {
    if typed.first().is_some_and(|w| w == "run") {
        bail_input!(
            "RUN-ARGS are the options of proctor run without the word run: proctor submit slurm --shards N -- --tasks T --agent CMD --out R.jsonl ..."
        );
    }
    let (words, run_id) = split_words(typed)?;
    for (option, why) in REFUSED {
        if words.iter().any(|w| w == option) {
            bail_input!("{option} is not for RUN-ARGS: {why}");
        }
    }
    if !words.iter().any(|w| w == "--tasks") {
        bail_input!("RUN-ARGS need --tasks T: the merge job checks every task has its results");
    }
    let args = parse_as_run(&words)?;
    let Some(out) = args.out.clone() else {
        bail_input!(
            "RUN-ARGS need --out R.jsonl: shard I writes R.shard-I-of-N.jsonl beside it, \
             and the merge job R.jsonl"
        );
    };
    let out_at = words
        .iter()
        .position(|w| w == "--out")
        .map(|at| at + 1)
        .expect("clap read --out from these words");
    Ok(RunWords {
        words,
        out_at,
        out,
        tasks: args.tasks,
        attempts: args.attempts,
        variants: args.variants,
        jobs: args.jobs,
        max_memory: args.containment.max_memory,
        only: !args.only.is_empty(),
        run_id,
    })
}

/// The words with `--opt=value` split in two and `--run-id` taken out, and its value.
fn split_words(typed: &[String]) -> anyhow::Result<(Vec<String>, Option<String>)> {
    let mut words = Vec::with_capacity(typed.len());
    for word in typed {
        match word.split_once('=') {
            Some((option, value)) if option.starts_with("--") => {
                words.push(option.to_owned());
                words.push(value.to_owned());
            }
            _ => words.push(word.clone()),
        }
    }
    let mut run_id = None;
    while let Some(at) = words.iter().position(|w| w == "--run-id") {
        if at + 1 >= words.len() {
            bail_input!("--run-id in RUN-ARGS needs a value");
        }
        let value = words.remove(at + 1);
        words.remove(at);
        crate::run::scheduler::check_run_id(&value)
            .map_err(|e| bad_input!("--run-id in RUN-ARGS: {e}"))?;
        if run_id.replace(value).is_some() {
            bail_input!("--run-id is given twice in RUN-ARGS");
        }
    }
    Ok((words, run_id))
}

/// `words` parsed by `proctor run`'s parser; its error, shortened, is bad input.
fn parse_as_run(words: &[String]) -> anyhow::Result<RunArgs> {
    let command =
        RunArgs::augment_args(clap::Command::new("proctor run").color(clap::ColorChoice::Never));
    let parsed = command
        .try_get_matches_from(std::iter::once("proctor run".to_owned()).chain(words.to_vec()))
        .and_then(|matches| RunArgs::from_arg_matches(&matches));
    parsed.map_err(|error| {
        bad_input!(
            "RUN-ARGS are not arguments of proctor run: {} (see proctor run --help)",
            clap_said(&error)
        )
    })
}

/// clap's message without its `error:` prefix and the usage it prints after it.
fn clap_said(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    rendered
        .lines()
        .take_while(|line| !line.starts_with("Usage:"))
        .map(|line| line.trim().trim_start_matches("error: "))
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        shell_words::split(text).unwrap()
    }

    fn message(result: anyhow::Result<RunWords>) -> String {
        crate::exit::message(&result.unwrap_err())
    }

    #[test]
    fn read_takes_out_tasks_and_the_limits() {
        let read = read(&words(
            "--tasks t.yaml --agent 'python3 a.py' --out=r.jsonl --jobs 4 --max-memory 1G --attempts 3 --run-id=x",
        ))
        .unwrap();
        assert_eq!(read.out, PathBuf::from("r.jsonl"));
        assert_eq!(read.tasks, PathBuf::from("t.yaml"));
        assert_eq!((read.jobs, read.max_memory), (Some(4), Some(1 << 30)));
        assert_eq!(read.attempts, 3);
        assert_eq!(read.run_id.as_deref(), Some("x"));
        assert_eq!(read.words[read.out_at - 1], "--out");
        assert!(!read.words.contains(&"--run-id".to_owned()));
    }

    #[test]
    fn read_refuses_what_submit_writes_and_needs_tasks_and_out() {
        let given = |extra: &str| message(read(&words(&format!("--tasks t --agent a {extra}"))));
        assert!(given("--out r --shard 1/2").starts_with("--shard is not for RUN-ARGS"));
        assert!(given("--out r --shard=auto").starts_with("--shard is not for RUN-ARGS"));
        assert!(given("--out r --resume").starts_with("--resume is not for RUN-ARGS"));
        assert!(given("--out r --html p.html").starts_with("--html is not for RUN-ARGS"));
        assert!(given("").starts_with("RUN-ARGS need --out"));
        assert!(message(read(&words("--agent a --out r"))).starts_with("RUN-ARGS need --tasks"));
        assert!(given("--out r --run-id").contains("needs a value"));
    }

    #[test]
    fn read_names_a_mistyped_argument() {
        let said = message(read(&words("--tasks t --agent a --out r --atempts 3")));
        assert!(said.contains("'--atempts'"), "{said}");
        assert!(!said.contains("Usage"), "{said}");
    }
}
