//! Tool names that cannot match (docs/task-file.md, "Tool names are checked"): in a task
//! that knows its tools (it serves some, or lists the agent's own in `agent_tools`), every
//! tool a rule, `forbidden_tools`, `expected_tools` or a fault names must be one of them.
//! A misspelt name would make its check pass every attempt, so it is refused at load.

use super::criteria::{BuildError, field_error};
use super::model::Task;
use crate::rules::Rule;

/// How many of the task's tools an error lists before "and N more".
const LISTED: usize = 12;

/// The tools `task` knows: those it serves, then the agent's own.
fn known_tools(task: &Task) -> Vec<&str> {
    let mut known: Vec<&str> = task.tools.iter().map(|tool| tool.name.as_str()).collect();
    known.extend(task.agent_tools.iter().map(String::as_str));
    known
}

/// Refuses a tool name or fault glob of `task` that matches none of its tools; a task that
/// knows none is left to the summary's "never applied" (docs/metrics.md).
pub(super) fn check_tool_names(task: &Task) -> Result<(), BuildError> {
    let known = known_tools(task);
    if known.is_empty() {
        return Ok(());
    }
    let unknown = |name: &str| !known.contains(&name);
    for (at, rule) in task.rules.iter().enumerate() {
        if let Some(name) = rule_tools(rule).into_iter().find(|name| unknown(name)) {
            let what = format!("rule {} ({})", at + 1, rule.describe());
            return Err(field_error("rules", not_a_tool(task, &known, name, &what)));
        }
    }
    for (field, names) in [
        ("forbidden_tools", &task.forbidden_tools),
        ("expected_tools", &task.expected_tools),
    ] {
        if let Some(name) = names.iter().find(|name| unknown(name)) {
            return Err(field_error(
                field,
                not_a_tool(task, &known, name, &format!("`{field}`")),
            ));
        }
    }
    let served: Vec<&str> = task.tools.iter().map(|tool| tool.name.as_str()).collect();
    for (at, fault) in task.faults.iter().enumerate() {
        let fires = |pattern: &str| {
            globset::Glob::new(pattern).is_ok_and(|glob| {
                let glob = glob.compile_matcher();
                served.iter().any(|tool| {
                    glob.is_match(tool)
                        && (*tool != crate::tools::ASK_USER || pattern.contains(*tool))
                })
            })
        };
        let alternatives = alternatives(&fault.tool);
        let dead = match alternatives.as_slice() {
            [_] => (!fault.matches_any(&served)).then(|| format!("`tool: {:?}`", fault.tool)),
            several => several
                .iter()
                .find(|pattern| !fires(pattern))
                .map(|pattern| {
                    format!(
                        "`{pattern}`, one of the alternatives of `tool: {:?}`,",
                        fault.tool
                    )
                }),
        };
        if let Some(dead) = dead {
            return Err(field_error(
                "faults",
                format!(
                    "fault {}: {dead} matches no tool this task serves (it serves {}), so it \
                     never fires",
                    at + 1,
                    listed(&served),
                ),
            ));
        }
    }
    Ok(())
}

/// Most alternatives a glob is read as; past it the glob is checked whole.
const MOST_ALTERNATIVES: usize = 64;

/// The globs a glob's `{a,b}` groups stand for: `{cancel_*,modify}_order` is
/// `cancel_*_order` and `modify_order`; one glob without groups, or with more than
/// [`MOST_ALTERNATIVES`], is itself.
pub(super) fn alternatives(glob: &str) -> Vec<String> {
    let mut found = vec![String::new()];
    let mut chars = glob.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let escaped = chars
                    .next()
                    .map_or_else(String::new, |next| format!("\\{next}"));
                found.iter_mut().for_each(|f| f.push_str(&escaped));
            }
            '{' => {
                let group: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let options: Vec<&str> = group.split(',').collect();
                if found.len() * options.len() > MOST_ALTERNATIVES {
                    return vec![glob.to_owned()];
                }
                found = found
                    .iter()
                    .flat_map(|start| options.iter().map(move |option| format!("{start}{option}")))
                    .collect();
            }
            c => found.iter_mut().for_each(|f| f.push(c)),
        }
    }
    found
}

/// Every tool a rule names: the one it guards and those it requires or orders.
fn rule_tools(rule: &Rule) -> Vec<&str> {
    match rule {
        Rule::Before { tool, requires, .. } => std::iter::once(tool)
            .chain(requires)
            .map(String::as_str)
            .collect(),
        Rule::AtMost { tool, .. } | Rule::Never { tool } => vec![tool.as_str()],
        Rule::Sequence { tools } => tools.iter().map(String::as_str).collect(),
    }
}

/// "`cancel_ordr` in rule 1 (...) is not a tool of this task (it has ...), ...".
fn not_a_tool(task: &Task, known: &[&str], name: &str, place: &str) -> String {
    let meant = crate::closest::closest(name, known.iter().copied())
        .map_or_else(String::new, |tool| format!("; did you mean `{tool}`?"));
    format!(
        "`{name}` in {place} is not a tool of this task (it has {}{}), so the check could \
         never fail{meant}",
        listed(known),
        own_tools_note(task),
    )
}

/// Where to declare a tool the agent runs itself, unless the task already does.
fn own_tools_note(task: &Task) -> &'static str {
    if task.agent_tools.is_empty() {
        "; a tool the agent runs itself and reports goes in `agent_tools`"
    } else {
        ""
    }
}

/// `a, b and c`, at most [`LISTED`] names, sorted.
fn listed(names: &[&str]) -> String {
    let mut names = names.to_vec();
    names.sort_unstable();
    names.dedup();
    let more = names.len().saturating_sub(LISTED);
    names.truncate(LISTED);
    let quoted: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
    match (quoted.as_slice(), more) {
        ([], _) => "no tools".to_owned(),
        ([one], 0) => one.clone(),
        ([first @ .., last], 0) => format!("{} and {last}", first.join(", ")),
        (all, more) => format!("{} and {more} more", all.join(", ")),
    }
}
