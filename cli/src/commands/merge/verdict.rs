//! How a merge ends (docs/merging.md, docs/exit-codes.md). Shards or attempts missing,
//! doubled shards and shards of mixed counts or runs exit 2 unless `--partial` accepts a
//! partial merge; conflicting results and unreadable lines exit 2 even then, since the
//! merged file then holds a result chosen for the user, or lacks lines nobody can tell.

use super::wording::{and_list, counted};
use crate::exit::Failure;
use std::path::Path;

/// The problems a merge found, counted.
#[derive(Debug, Default)]
pub struct Problems {
    pub missing_shards: usize,
    pub doubled_shards: usize,
    /// Counts, runs, or lines of no shard mixed with shards.
    pub mixed: usize,
    /// Tasks lacking attempts, or lacking every result.
    pub missing_attempts: usize,
    pub conflicts: usize,
    pub bad_lines: usize,
}

impl Problems {
    /// What `--partial` accepts, each said with its count.
    fn incomplete(&self) -> Vec<String> {
        [
            (self.missing_shards, "missing shard", "missing shards"),
            (self.doubled_shards, "doubled shard", "doubled shards"),
            (self.mixed, "mix of shards", "mixes of shards"),
            (
                self.missing_attempts,
                "task missing attempts",
                "tasks missing attempts",
            ),
        ]
        .into_iter()
        .filter(|(count, _, _)| *count > 0)
        .map(|(count, one, many)| counted(count, one, many))
        .collect()
    }

    /// What fails the merge even with `--partial`, each said with its count.
    fn refused(&self) -> Vec<String> {
        [
            (self.conflicts, "conflicting result", "conflicting results"),
            (self.bad_lines, "unreadable line", "unreadable lines"),
        ]
        .into_iter()
        .filter(|(count, _, _)| *count > 0)
        .map(|(count, one, many)| counted(count, one, many))
        .collect()
    }
}

/// Ends the merge into `out`: Ok when nothing is wrong, or only what `partial` accepts (then
/// a line says the merge is partial); else a [`Failure::PartialInput`] (exit 2).
pub fn verdict(problems: &Problems, partial: bool, out: &Path) -> anyhow::Result<()> {
    let incomplete = problems.incomplete();
    let refused = problems.refused();
    if !refused.is_empty() {
        let all = [refused, incomplete].concat();
        let accepted = if partial {
            " (--partial does not accept conflicts or unreadable lines)"
        } else {
            ""
        };
        return Err(Failure::PartialInput(format!(
            "merged with {}{accepted}; {} was still written",
            and_list(&all),
            out.display()
        ))
        .into());
    }
    if incomplete.is_empty() {
        return Ok(());
    }
    if partial {
        eprintln!(
            "proctor: the merge is partial ({}); {} holds the results found",
            and_list(&incomplete),
            out.display()
        );
        return Ok(());
    }
    Err(Failure::PartialInput(format!(
        "merged with {}; {} was still written; --partial accepts a partial merge",
        and_list(&incomplete),
        out.display()
    ))
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit::{Class, class};

    fn code(problems: &Problems, partial: bool) -> Option<Class> {
        verdict(problems, partial, Path::new("all.jsonl"))
            .err()
            .and_then(|e| class(&e))
    }

    #[test]
    fn merge_partial_accepts_what_is_missing_but_never_a_conflict() {
        let missing = Problems {
            missing_shards: 1,
            ..Problems::default()
        };
        assert_eq!(code(&missing, false), Some(Class::Input));
        assert_eq!(code(&missing, true), None);
        let conflict = Problems {
            conflicts: 1,
            ..Problems::default()
        };
        assert_eq!(code(&conflict, true), Some(Class::Input));
        assert_eq!(code(&Problems::default(), false), None);
    }
}
