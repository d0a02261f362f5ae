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
use crate::loopback::page_server::Gate;
use anyhow::Context;
use labels_file::LabelsFile;
use server::App;
use session::Session;
use std::io::Write;
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
    let token =
        crate::loopback::token::new_token().context("cannot read the OS's random source")?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async move {
        let listener = crate::loopback::bind(args.port)
            .await
            .map_err(|e| {
                crate::exit::infrastructure(format!("cannot listen on 127.0.0.1:{}", args.port), e)
            })?;
        let port = listener.local_addr()?.port();
        let app = Arc::new(App {
            session,
            gate: Gate {
                token,
                port,
                command: "review",
            },
        });
        {
            let mut out = crate::exit::stdout();
            let written = writeln!(out, "{}", app.gate.address());
            out.close(written.map_err(crate::exit::stdout_error))?;
        }
        eprintln!("proctor: review: open the address above in a browser; Ctrl-C stops (every label is already saved)");
        let serving = server::serve(listener, app.clone())
            .map_err(|e| crate::exit::infrastructure("cannot serve the review", e))?;
        // Every label is synced as it is posted: stopping at any moment loses none.
        let _ = tokio::signal::ctrl_c().await;
        drop(serving);
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
    })
}
