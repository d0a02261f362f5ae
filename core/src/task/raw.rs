//! The task as written in a file: every field optional, aliases accepted, unknown
//! fields refused. `load` turns it into a [`super::Task`].

use super::gate::GateCategory;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTask {
    #[serde(alias = "name")]
    pub id: Option<Value>,
    #[serde(alias = "goal", alias = "prompt")]
    pub input: Option<String>,
    #[serde(alias = "expected_answer")]
    pub expected: Option<Value>,
    /// Patterns that must all appear in the answer, read by `load::read_expected_all`.
    pub expected_all: Option<Value>,
    /// Texts the agent must have told the user, read by [`super::ToldUser::read`].
    pub told_user: Option<Value>,
    pub max_tool_calls: Option<u64>,
    pub forbidden_tools: Option<Vec<String>>,
    pub expected_tools: Option<Vec<String>>,
    pub optimal_steps: Option<u64>,
    pub step_cap: Option<u64>,
    pub timeout_s: Option<f64>,
    pub files: Option<BTreeMap<String, Value>>,
    pub files_dir: Option<String>,
    pub state_files: Option<BTreeMap<String, Value>>,
    pub state_dir: Option<String>,
    pub rules: Option<Vec<Value>>,
    pub verify: Option<Vec<Value>>,
    pub rubric: Option<String>,
    pub judge_files: Option<Vec<String>>,
    pub gate: Option<Vec<GateCategory>>,
    pub tags: Option<Vec<String>>,
    pub trajectory_from: Option<String>,
    pub network: Option<super::model::TaskNetwork>,
    pub faults: Option<Vec<Value>>,
    /// A map of names to variants, or a list of variants with a `name` each; in file
    /// order (`serde_json`'s maps keep it), so variants expand in that order.
    pub variants: Option<Value>,
    /// Served tools (docs/tools.md), read by [`crate::tools::parse_tools`].
    pub tools: Option<Value>,
    /// Tools the agent runs itself and reports, beside the served ones.
    pub agent_tools: Option<Vec<String>>,
    /// The simulated user, read by [`super::user::parse_user`].
    pub user: Option<Value>,
}
