//! One `proctor submit slurm`, checked and made whole before anything is written: its
//! RUN-ARGS, files, run id, proctor's path and extra `#SBATCH` options (docs/cluster.md).

use super::layout::Layout;
use super::run_args::{self, RunWords};
use crate::args::SlurmArgs;
use crate::exit::{bail_input, infrastructure};
use crate::run::variants::VariantChoice;

#[derive(Debug)]
pub struct Submission {
    pub run: RunWords,
    pub layout: Layout,
    /// Given in RUN-ARGS, else made now.
    pub run_id: String,
    /// The proctor binary that submits, absolute: the jobs run the same one.
    pub proctor: String,
    /// `--sbatch` values, each an `#SBATCH` line of both scripts.
    pub extra: Vec<String>,
}

impl Submission {
    pub fn new(args: &SlurmArgs) -> anyhow::Result<Submission> {
        for option in &args.sbatch {
            check_sbatch_option(option)?;
        }
        let run = run_args::read(&args.run_args)?;
        // A suite that does not load would fail in every shard: say so now.
        let suite = crate::commands::load_tasks(&run.tasks)?;
        VariantChoice::parse(&run.variants, &suite)?;
        let submit_dir = std::env::current_dir()
            .map_err(|e| infrastructure("cannot read the current folder", e))?;
        let layout = Layout::new(&submit_dir, &run.out, args.shards)?;
        let proctor = std::env::current_exe()
            .map_err(|e| infrastructure("cannot find proctor's own path", e))?;
        let Some(proctor) = proctor.to_str().map(str::to_owned) else {
            bail_input!("{}: proctor's path is not UTF-8", proctor.display());
        };
        let run_id = match &run.run_id {
            Some(given) => given.clone(),
            // Made once here and written into the script: a requeued or rerun shard keeps it.
            None => format!(
                "slurm-{}",
                crate::run::scheduler::new_run_id(jiff::Timestamp::now())
            ),
        };
        Ok(Submission {
            run,
            layout,
            run_id,
            proctor,
            extra: args.sbatch.clone(),
        })
    }
}

/// An `--sbatch` value is one `#SBATCH` option, written as given.
fn check_sbatch_option(option: &str) -> anyhow::Result<()> {
    if !option.starts_with("--") {
        bail_input!(
            "--sbatch {option:?}: give sbatch's long option, starting with -- (e.g. --sbatch=--time=2:00:00)"
        );
    }
    if option.contains('\n') {
        bail_input!("--sbatch {option:?}: one option, on one line");
    }
    let name = option.split(['=', ' ']).next().unwrap_or(option);
    if name == "--array" {
        bail_input!("--sbatch {option}: submit writes --array=1-N itself (--shards N)");
    }
    // `--sbatch --dry-run` takes submit's own option as sbatch's, and would submit.
    if ["--dry-run", "--shards", "--sbatch"].contains(&name) {
        bail_input!(
            "--sbatch {option}: that is an option of proctor submit; give it apart from --sbatch"
        );
    }
    Ok(())
}
