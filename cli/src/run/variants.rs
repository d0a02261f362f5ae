//! `--variants none|all|NAME...`: which of a task's variants (docs/tools.md) a run makes.

use proctor_core::task::{Suite, Task};
use std::collections::BTreeSet;

/// The variants chosen on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VariantChoice {
    /// The base tasks only.
    None,
    /// The base tasks and every variant (the default).
    All,
    /// The base tasks and the variants of these names.
    Named(BTreeSet<String>),
}

impl VariantChoice {
    /// Reads the words given to `--variants` (repeated or comma-separated), refusing a
    /// name no task of `suite` defines: a typo would silently run the base tasks only.
    pub fn parse(words: &[String], suite: &Suite) -> anyhow::Result<VariantChoice> {
        let words: Vec<&str> = words
            .iter()
            .flat_map(|w| w.split(','))
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .collect();
        match words.as_slice() {
            [] | ["all"] => return Ok(VariantChoice::All),
            ["none"] => return Ok(VariantChoice::None),
            _ => {}
        }
        if let Some(word) = words.iter().find(|w| matches!(**w, "all" | "none")) {
            crate::exit::bail_input!(
                "--variants {word} stands alone; it cannot be combined with variant names"
            );
        }
        let defined: BTreeSet<&str> = suite
            .tasks
            .iter()
            .filter_map(|t| t.variant.as_deref())
            .collect();
        if let Some(unknown) = words.iter().find(|w| !defined.contains(**w)) {
            let known = if defined.is_empty() {
                "the tasks define no variants".to_owned()
            } else {
                format!(
                    "the tasks define {}",
                    defined.into_iter().collect::<Vec<_>>().join(", ")
                )
            };
            crate::exit::bail_input!(
                "--variants {unknown}: no task has a variant of that name ({known})"
            );
        }
        Ok(VariantChoice::Named(
            words.into_iter().map(str::to_owned).collect(),
        ))
    }

    /// True when the run makes attempts of `task`: every base task, and the variants chosen.
    pub fn chooses(&self, task: &Task) -> bool {
        match (&task.variant, self) {
            (None, _) | (Some(_), VariantChoice::All) => true,
            (Some(_), VariantChoice::None) => false,
            (Some(name), VariantChoice::Named(names)) => names.contains(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite() -> (tempfile::TempDir, Suite) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.yaml");
        std::fs::write(
            &path,
            "- id: a\n  input: x\n  expected: x\n  variants:\n    pushy: {prefix: 'Now. '}\n    flaky: {suffix: '?'}\n- id: b\n  input: y\n  expected: y\n",
        )
        .unwrap();
        let suite = Suite::load(&path).unwrap();
        (dir, suite)
    }

    fn chosen(words: &[&str]) -> anyhow::Result<Vec<String>> {
        let (_dir, suite) = suite();
        let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        let choice = VariantChoice::parse(&words, &suite)?;
        Ok(suite
            .tasks
            .iter()
            .filter(|t| choice.chooses(t))
            .map(|t| t.id.clone())
            .collect())
    }

    #[test]
    fn all_is_the_default_and_none_keeps_the_base_tasks() {
        assert_eq!(chosen(&[]).unwrap(), ["a", "a@pushy", "a@flaky", "b"]);
        assert_eq!(chosen(&["all"]).unwrap(), ["a", "a@pushy", "a@flaky", "b"]);
        assert_eq!(chosen(&["none"]).unwrap(), ["a", "b"]);
        assert_eq!(chosen(&["flaky"]).unwrap(), ["a", "a@flaky", "b"]);
        assert_eq!(
            chosen(&["flaky,pushy"]).unwrap(),
            ["a", "a@pushy", "a@flaky", "b"]
        );
        assert_eq!(
            chosen(&["pushy", "flaky"]).unwrap(),
            ["a", "a@pushy", "a@flaky", "b"]
        );
    }

    #[test]
    fn an_unknown_name_or_a_mixed_word_is_refused() {
        assert_eq!(
            chosen(&["pushi"]).unwrap_err().to_string(),
            "--variants pushi: no task has a variant of that name (the tasks define flaky, pushy)"
        );
        assert_eq!(
            chosen(&["pushy", "none"]).unwrap_err().to_string(),
            "--variants none stands alone; it cannot be combined with variant names"
        );
    }
}
