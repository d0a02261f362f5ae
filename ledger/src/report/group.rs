//! `--by`: which columns split a period's rows into groups.

use std::str::FromStr;

/// The grouping columns. With none chosen every row of a period is one group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GroupBy {
    /// The agent version.
    pub label: bool,
    /// The model (an attempt that used two models counts as a run of each).
    pub model: bool,
    /// The task suite.
    pub suite: bool,
}

impl GroupBy {
    /// Grouping by label only: the default, one line per agent version.
    pub fn label() -> GroupBy {
        GroupBy {
            label: true,
            ..GroupBy::default()
        }
    }
}

impl FromStr for GroupBy {
    type Err = String;
    /// Reads `label,model,suite` (any subset, any order; empty for no grouping).
    fn from_str(text: &str) -> Result<GroupBy, String> {
        let mut by = GroupBy::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "label" => by.label = true,
                "model" => by.model = true,
                "suite" => by.suite = true,
                other => {
                    return Err(format!(
                        "cannot group by {other:?} (expected label, model or suite)"
                    ));
                }
            }
        }
        Ok(by)
    }
}

/// One group's values (empty for columns not grouped by).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct GroupKey {
    /// The agent version.
    pub label: String,
    /// The model.
    pub model: String,
    /// The suite.
    pub suite: String,
}

impl GroupKey {
    /// A name for legends: the grouped values joined with ` / `, or `all`.
    pub fn name(&self, by: GroupBy) -> String {
        let mut parts = Vec::new();
        if by.label {
            parts.push(self.label.as_str());
        }
        if by.model {
            parts.push(self.model.as_str());
        }
        if by.suite {
            parts.push(self.suite.as_str());
        }
        let parts: Vec<&str> = parts
            .into_iter()
            .map(|p| if p.is_empty() { "(none)" } else { p })
            .collect();
        if parts.is_empty() {
            "all".to_owned()
        } else {
            parts.join(" / ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_any_subset() {
        assert_eq!("label".parse::<GroupBy>().unwrap(), GroupBy::label());
        let all: GroupBy = "suite, model,label".parse().unwrap();
        assert!(all.label && all.model && all.suite);
        assert_eq!("".parse::<GroupBy>().unwrap(), GroupBy::default());
        assert!(
            "agent"
                .parse::<GroupBy>()
                .unwrap_err()
                .contains("\"agent\"")
        );
    }

    #[test]
    fn names_for_legends() {
        let key = GroupKey {
            label: "v2".into(),
            model: String::new(),
            suite: "refunds".into(),
        };
        assert_eq!(key.name(GroupBy::label()), "v2");
        assert_eq!(key.name("label,model".parse().unwrap()), "v2 / (none)");
        assert_eq!(key.name(GroupBy::default()), "all");
    }
}
