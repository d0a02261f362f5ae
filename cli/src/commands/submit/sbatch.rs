//! Calling `sbatch`: a job id back, or an infrastructure failure quoting what sbatch said
//! (docs/exit-codes.md: exit 3).

use crate::exit::{Failure, infrastructure};
use std::process::Command;

/// `sbatch --parsable OPTIONS SCRIPT`, and the job id it prints (`ID` or `ID;CLUSTER`).
pub fn sbatch(options: &[String], script: &str) -> anyhow::Result<String> {
    let output = Command::new("sbatch")
        .arg("--parsable")
        .args(options)
        .arg(script)
        .output()
        .map_err(|e| infrastructure("cannot run sbatch (is Slurm installed here?)", e))?;
    let said = String::from_utf8_lossy(&output.stderr).trim().to_owned();
    if !output.status.success() {
        return Err(Failure::infrastructure(format!(
            "sbatch {script} failed ({}): {said}",
            output.status
        ))
        .into());
    }
    let printed = String::from_utf8_lossy(&output.stdout);
    job_id(&printed).ok_or_else(|| {
        Failure::infrastructure(format!(
            "sbatch {script} printed {:?}, not a job id; it said: {said}",
            printed.trim()
        ))
        .into()
    })
}

/// The job id of `sbatch --parsable`'s output: its last line, before any `;CLUSTER`.
fn job_id(printed: &str) -> Option<String> {
    let line = printed.trim().lines().last()?;
    let id = line.split(';').next()?.trim();
    let numeric = !id.is_empty() && id.chars().all(|c| c.is_ascii_digit());
    numeric.then(|| id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::job_id;

    #[test]
    fn job_id_reads_parsable_output() {
        assert_eq!(job_id("41\n").as_deref(), Some("41"));
        assert_eq!(job_id("42;cluster1\n").as_deref(), Some("42"));
        assert_eq!(job_id("Submitted batch job 7\n"), None);
        assert_eq!(job_id(""), None);
    }
}
