//! `proctor review`: human labels for calibrating the judge, in a browser.
//!
//! A server on 127.0.0.1 shows each judged attempt as the judge saw it (rubric, input,
//! answer, end-state files) and appends the reviewer's PASS or FAIL to the labels file
//! `proctor calibrate --labels` reads, synced before the page moves on. The page shows the
//! calibration of the labels so far, computed by `calibrate`'s own code.
//!
//! - [`ReviewArgs`]: the options; [`attempts`]: the judged attempts of the results;
//!   [`sample`] and [`allocation`]: which are offered; [`labels_file`]: the CSV;
//!   [`session`]: what the page asks; [`detail`]: one attempt; [`live`]: the calibration;
//!   [`server`], [`page`]: HTTP and the page.
//!
//! Choices: a skip is not written (the file holds labels only, and `calibrate` would read a
//! row as one), so a skipped attempt is offered again after a restart; a rater never labels
//! an attempt twice (the file is checked under its lock); the review is blind unless
//! `--show-judge`.

mod allocation;
mod attempts;
mod detail;
mod labels_file;
mod live;
mod page;
mod sample;
mod server;
mod session;

pub use crate::args::ReviewArgs;

use crate::judging::{Seeds, check_globs};
use labels_file::LabelsFile;
use server::App;
use session::Session;
use std::sync::{Arc, Mutex};

pub fn run(args: ReviewArgs) -> anyhow::Result<()> {
    let suite = match &args.tasks {
        Some(tasks) => {
            let suite = crate::commands::load_tasks(tasks)?;
            check_globs(suite.tasks.iter())?;
            Some(suite)
        }
        None => None,
    };
    let judged = attempts::read(&args.results, &args.keep, suite.as_ref())?;
    let labels = LabelsFile::open(&args.labels)?;
    let stored = labels.read()?;
    let advice = match args.sample {
        Some(budget) => allocation::advice(&args.results, &stored, &args.rater, budget)?,
        None => None,
    };
    let (order, plan) = sample::draw(&judged.attempts, args.sample, args.seed, advice);
    let offered: Vec<attempts::Attempt> =
        order.iter().map(|&i| judged.attempts[i].clone()).collect();
    let missing = offered.iter().filter(|a| a.sandbox.is_none()).count();
    let mine = stored.iter().filter(|l| l.rater == args.rater).count();
    eprintln!(
        "proctor: review: {} judged attempt{} offered{}; {} label{} by {} already in {}",
        offered.len(),
        if offered.len() == 1 { "" } else { "s" },
        plan.as_ref().map_or_else(String::new, |p| format!(
            " (sample of {}, seed {}: {} judge-PASS, {} judge-FAIL)",
            p.size, p.seed, p.judge_pass, p.judge_fail
        )),
        mine,
        if mine == 1 { "" } else { "s" },
        args.rater,
        args.labels.display()
    );
    if missing > 0 {
        eprintln!(
            "proctor: note: {missing} offered attempt{} no kept sandbox under {}: their files cannot be shown",
            if missing == 1 { " has" } else { "s have" },
            args.keep.display()
        );
    }
    let session = Session {
        attempts: offered,
        plan,
        labels,
        rater: args.rater,
        show_judge: args.show_judge,
        results: args.results,
        suite,
        seeds: Mutex::new(Seeds::default()),
    };
    // Every label is synced as it is posted: stopping at any moment loses none.
    let app = crate::commands::served_page::serve_until_interrupted(
        args.port,
        "review",
        "every label is already saved",
        |gate| Arc::new(App { session, gate }),
        server::serve,
    )?;
    let session = &app.session;
    let mine = session
        .labels
        .read()?
        .iter()
        .filter(|l| l.rater == session.rater)
        .count();
    eprintln!(
        "proctor: review stopped: {mine} label{} by {} in {}",
        if mine == 1 { "" } else { "s" },
        session.rater,
        session.labels.path().display()
    );
    Ok(())
}
