//! Reading task files (JSON array, JSONL, YAML list) and folders of them.

use super::CheckNames;
use super::criteria::{BuildError, field_error, read_expected, read_rules, read_verify};
use super::defaults::{Defaults, Inherited, split_suite};
use super::error::{Place, TaskError};
use super::gate::GateCategory;
use super::locate::{field_in_message, field_line, raw_scalar, strip_position, task_line};
use super::model::Task;
use super::raw::RawTask;
use super::tool_names::check_tool_names;
use super::variant::{expand_variant, read_faults, variant_entries};
use crate::end_state::check_relative_path;
use crate::normalise::ExpectedAnswer;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One task file's content, kept for the suite digest.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    /// What the suite digest covers: each task as parsed, without the judge's fields
    /// ([`JUDGE_FIELDS`]), so a rubric edit leaves results re-judgeable.
    pub graded: Vec<u8>,
}

/// The fields only the judge reads. Results stay tied to a task file across edits of
/// these; each verdict records the rubric's own hash instead.
pub const JUDGE_FIELDS: [&str; 2] = ["rubric", "judge_files"];

/// A task as the digest sees it: its fields in file order, without [`JUDGE_FIELDS`], as
/// compact JSON with its length in front.
fn add_graded_fields(value: &Value, out: &mut Vec<u8>) {
    let text = match value {
        Value::Object(fields) => {
            let kept: serde_json::Map<String, Value> = fields
                .iter()
                .filter(|(key, _)| !JUDGE_FIELDS.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            Value::Object(kept).to_string()
        }
        other => other.to_string(),
    };
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// Task file kinds, chosen by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    JsonLines,
    Yaml,
}

fn format_of(path: &Path) -> Option<Format> {
    match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
        "json" => Some(Format::Json),
        "jsonl" | "ndjson" => Some(Format::JsonLines),
        "yaml" | "yml" => Some(Format::Yaml),
        _ => None,
    }
}

/// The task files named by `--tasks`: the file itself, or every task file directly in
/// the folder, sorted by path. Subfolders are not searched: they usually hold seed
/// files, which may well be JSON.
pub fn task_files(path: &Path) -> Result<Vec<PathBuf>, TaskError> {
    let meta = std::fs::metadata(path).map_err(|source| TaskError::Read {
        path: path.to_owned(),
        source,
    })?;
    if !meta.is_dir() {
        if format_of(path).is_none() {
            return Err(TaskError::Extension {
                path: path.to_owned(),
            });
        }
        return Ok(vec![path.to_owned()]);
    }
    let entries = std::fs::read_dir(path).map_err(|source| TaskError::Read {
        path: path.to_owned(),
        source,
    })?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| TaskError::Read {
            path: path.to_owned(),
            source,
        })?;
        let file = entry.path();
        if file.is_file() && format_of(&file).is_some() {
            files.push(file);
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(TaskError::EmptyFolder {
            path: path.to_owned(),
        });
    }
    Ok(files)
}

/// Reads one task file into tasks.
pub fn load_file(path: &Path) -> Result<(Vec<Task>, SourceFile), TaskError> {
    let format = format_of(path).ok_or_else(|| TaskError::Extension {
        path: path.to_owned(),
    })?;
    let bytes = std::fs::read(path).map_err(|source| TaskError::Read {
        path: path.to_owned(),
        source,
    })?;
    // A forbidden tool spelled in Latin-1 would silently never match: refuse it.
    let text = crate::utf8_text::utf8_text(&bytes).map_err(|e| TaskError::Encoding {
        path: path.to_owned(),
        line: e.line,
        offset: e.byte,
    })?;
    let place = |line: Option<usize>, task: Option<String>| Place {
        file: path.to_owned(),
        line,
        task,
    };
    let shape_error = |message: String| TaskError::Syntax {
        place: place(None, None),
        message,
    };
    let mut defaults = Defaults::default();
    // (value, line of the task when the format tells it)
    let values: Vec<(Value, Option<usize>)> = match format {
        Format::Json => {
            let all: Value = serde_json::from_str(text).map_err(|e| TaskError::Syntax {
                place: place(Some(e.line()), None),
                message: strip_position(&e.to_string()).to_owned(),
            })?;
            let (file_defaults, items) = split_suite(all, true).map_err(shape_error)?;
            defaults = file_defaults;
            items.into_iter().map(|v| (v, None)).collect()
        }
        Format::JsonLines => {
            let mut items = Vec::new();
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let value: Value = serde_json::from_str(line).map_err(|e| TaskError::Syntax {
                    place: place(Some(i + 1), None),
                    message: strip_position(&e.to_string()).to_owned(),
                })?;
                items.push((value, Some(i + 1)));
            }
            items
        }
        Format::Yaml => {
            // YAML 1.2 booleans only: `expected: no` or `y` is an answer, not a boolean.
            let options = serde_saphyr::options! { strict_booleans: true };
            let all: Option<Value> =
                serde_saphyr::from_str_with_options(text, options).map_err(|e| {
                    TaskError::Syntax {
                        place: place(None, None),
                        message: e.to_string(),
                    }
                })?;
            let (file_defaults, items) = match all {
                None => (Defaults::default(), Vec::new()),
                Some(all) => split_suite(all, false).map_err(shape_error)?,
            };
            defaults = file_defaults;
            items
                .into_iter()
                .map(|v| (keep_number_spelling(v, text), None))
                .collect()
        }
    };
    let task_dir = path.parent().unwrap_or(Path::new("."));
    let mut tasks = Vec::with_capacity(values.len());
    let mut graded = Vec::new();
    for (index, (mut value, known_line)) in values.into_iter().enumerate() {
        let merged = defaults.apply(&mut value);
        add_graded_fields(&value, &mut graded);
        let label = task_label(&value, index);
        let start = known_line.or_else(|| {
            value
                .get("id")
                .or_else(|| value.get("name"))
                .and_then(Value::as_str)
                .and_then(|id| task_line(text, id))
        });
        let fail = |field: Option<&str>, message: String| {
            let line = match (field, start, format) {
                (Some(field), Some(start), Format::Json | Format::Yaml) => {
                    field_line(text, start, field).or(Some(start))
                }
                _ => start,
            };
            TaskError::Invalid {
                place: place(line, Some(label.clone())),
                message,
            }
        };
        let inherited = merged.map_err(|(field, message)| fail(Some(&field), message))?;
        let expanded = build_task(value, task_dir, path, inherited)
            .map_err(|(field, message)| fail(field.as_deref(), message))?;
        tasks.extend(expanded);
    }
    Ok((
        tasks,
        SourceFile {
            path: path.to_owned(),
            bytes,
            graded,
        },
    ))
}

/// Restores the spelling of a numeric `expected` answer in YAML (`1.50`, `007`), which
/// YAML would otherwise read as a number and print back differently.
fn keep_number_spelling(mut value: Value, text: &str) -> Value {
    let Some(id) = value
        .get("id")
        .or_else(|| value.get("name"))
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return value;
    };
    for key in ["expected", "expected_answer"] {
        let Some(Value::Number(number)) = value.get(key) else {
            continue;
        };
        let spelled = task_line(text, &id)
            .and_then(|start| field_line(text, start, key))
            .and_then(|line| raw_scalar(text, line, key))
            .filter(|raw| raw.replace('_', "").parse::<f64>().ok() == number.as_f64());
        if let Some(raw) = spelled {
            value[key] = Value::String(raw);
        }
    }
    value
}

/// `id` of a task as written, or `#N` when it has none.
fn task_label(value: &Value, index: usize) -> String {
    match value.get("id").or_else(|| value.get("name")) {
        Some(Value::String(id)) => format!("`{id}`"),
        _ => format!("#{}", index + 1),
    }
}

/// Validates one task and applies defaults: the task, then one task per variant.
fn build_task(
    value: Value,
    task_dir: &Path,
    source: &Path,
    inherited: Inherited,
) -> Result<Vec<Task>, BuildError> {
    if !value.is_object() {
        return Err((None, "a task must be an object".to_owned()));
    }
    let raw: RawTask = serde_json::from_value(value).map_err(|e| {
        let message = strip_position(&e.to_string()).to_owned();
        (field_in_message(&message).map(str::to_owned), message)
    })?;
    let id = match raw.id {
        Some(Value::String(id)) if !id.trim().is_empty() => id,
        Some(Value::Number(n)) => n.to_string(),
        Some(_) => return Err(field_error("id", "must be a non-empty string")),
        None => return Err((None, "missing field `id` (alias `name`)".to_owned())),
    };
    check_id(&id).map_err(|m| field_error("id", m))?;
    if id.contains('@') {
        return Err(field_error(
            "id",
            format!(
                "{id:?} holds `@`, which names a variant (`id@variant`); use another character"
            ),
        ));
    }
    let input = raw.input.ok_or_else(|| {
        (
            None,
            "missing field `input` (aliases `goal`, `prompt`)".to_owned(),
        )
    })?;
    let (expected, expected_form) = read_expected(raw.expected)?;
    let expected_all = read_expected_all(raw.expected_all)?;
    if let Some(t) = raw.timeout_s
        && !(t.is_finite() && t > 0.0)
    {
        return Err(field_error(
            "timeout_s",
            "must be a positive number of seconds",
        ));
    }
    let files = read_seed_files(raw.files, "files")?;
    let files_dir = read_seed_dir(raw.files_dir, task_dir, "files_dir")?;
    let state_files = read_seed_files(raw.state_files, "state_files")?;
    let state_dir = read_seed_dir(raw.state_dir, task_dir, "state_dir")?;
    let mut forbidden_tools = raw.forbidden_tools.unwrap_or_default();
    let (rules, rule_categories) = read_rules(raw.rules.unwrap_or_default(), &mut forbidden_tools)?;
    forbidden_tools.sort();
    forbidden_tools.dedup();
    let (verify, verify_categories) = read_verify(raw.verify.unwrap_or_default(), task_dir)?;
    let rubric = raw.rubric.filter(|r| !r.trim().is_empty());
    let trajectory_from_trace = match raw.trajectory_from.as_deref() {
        None | Some("reported") => false,
        Some("trace") => true,
        Some(other) => {
            return Err(field_error(
                "trajectory_from",
                format!("{other:?} is not a trajectory source (expected trace or reported)"),
            ));
        }
    };
    let faults =
        read_faults(raw.faults.unwrap_or_default()).map_err(|m| field_error("faults", m))?;
    let variants = match raw.variants {
        None => Vec::new(),
        Some(value) => variant_entries(value).map_err(|m| field_error("variants", m))?,
    };
    let tags = raw.tags.unwrap_or_default();
    check_tags(&tags, &variants).map_err(|m| field_error("tags", m))?;
    let mut tools = crate::tools::parse_tools(raw.tools.unwrap_or(Value::Null), task_dir)
        .map_err(|m| field_error("tools", m))?;
    if let Some(user) = raw.user {
        let ask_user =
            super::user::user_tool(user, &tools, task_dir).map_err(|m| field_error("user", m))?;
        tools.push(ask_user);
    }
    let mut task = Task {
        id,
        input,
        expected,
        expected_form,
        expected_all,
        told_user: raw
            .told_user
            .map(super::ToldUser::read)
            .transpose()
            .map_err(|m| field_error("told_user", m))?,
        max_tool_calls: raw.max_tool_calls,
        forbidden_tools,
        expected_tools: raw.expected_tools.unwrap_or_default(),
        optimal_steps: raw.optimal_steps,
        step_cap: raw.step_cap,
        timeout_s: raw.timeout_s,
        files,
        files_dir,
        state_files,
        state_dir,
        rules,
        rule_categories,
        verify,
        verify_categories,
        rubric,
        judge_files: raw.judge_files.unwrap_or_default(),
        gate: Vec::new(),
        tags,
        trajectory_from_trace,
        network: raw.network,
        faults,
        variant: None,
        tools,
        agent_tools: read_agent_tools(raw.agent_tools)?,
        source: source.to_owned(),
        check_names: CheckNames::default(),
        expected_answer: ExpectedAnswer::default(),
    };
    if !task.has_criteria() {
        return Err((
            None,
            "defines no expected answer, told_user, budget, forbidden tool, rule, end-state check \
             or rubric; \
             an empty list of criteria would pass anything"
                .to_owned(),
        ));
    }
    let defined = task.defined_categories();
    let explicit_gate = raw.gate.is_some();
    task.gate = match raw.gate {
        None => defined,
        Some(mut listed) => {
            if inherited.gate {
                listed.retain(|category| defined.contains(category));
            }
            listed.sort();
            listed.dedup();
            if let Some(missing) = listed.iter().find(|c| !defined.contains(c)) {
                return Err(field_error(
                    "gate",
                    format!("gates on `{missing}` but the task defines no {missing} checks"),
                ));
            }
            if listed.is_empty() {
                return Err(field_error("gate", "must name at least one category"));
            }
            listed
        }
    };
    debug_assert!(task.gate.iter().all(|c| GateCategory::ALL.contains(c)));
    check_tool_names(&task)?;
    task.check_names = super::naming::check_names(&task);
    if let Some(expected) = &task.expected {
        task.expected_answer = ExpectedAnswer::of(expected, &task.expected_form);
    }
    let mut tasks = Vec::with_capacity(1 + variants.len());
    for (name, variant) in variants {
        let expanded = expand_variant(&task, &name, variant, task_dir, explicit_gate)
            .map_err(|m| field_error("variants", format!("variant `{name}`: {m}")))?;
        check_id(&expanded.id)
            .map_err(|m| field_error("variants", format!("id `{}` {m}", expanded.id)))?;
        check_tool_names(&expanded)
            .map_err(|(_, m)| field_error("variants", format!("variant `{name}`: {m}")))?;
        tasks.push(expanded);
    }
    tasks.insert(0, task);
    Ok(tasks)
}

/// Refuses a tag listed twice, or a tag `variant:NAME` on a task with a variant NAME (the
/// variant adds that tag itself): an attempt counts once under each tag in `--by tag`.
fn check_tags(tags: &[String], variants: &[(String, Value)]) -> Result<(), String> {
    for (at, tag) in tags.iter().enumerate() {
        if tags[..at].contains(tag) {
            return Err(format!("`{tag}` is listed twice"));
        }
    }
    match tags.iter().find_map(|tag| {
        let name = tag.strip_prefix("variant:")?;
        variants.iter().any(|(n, _)| n == name).then_some(tag)
    }) {
        Some(tag) => Err(format!(
            "`{tag}` is the tag proctor gives the task's own variant `{}`; remove it",
            &tag["variant:".len()..]
        )),
        None => Ok(()),
    }
}

/// Reads `expected_all`: a non-empty list of texts (numbers and booleans as written),
/// none of which normalises to nothing (an empty pattern is in every answer).
fn read_expected_all(value: Option<Value>) -> Result<Vec<String>, BuildError> {
    let items = match value {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(field_error(
                "expected_all",
                format!("must be a list of texts like [W1, cancelled], found {other}"),
            ));
        }
    };
    if items.is_empty() {
        return Err(field_error(
            "expected_all",
            "an empty list checks nothing; remove it or name the texts the answer must hold",
        ));
    }
    items
        .into_iter()
        .enumerate()
        .map(|(at, item)| {
            let text = match item {
                Value::String(s) => s,
                v @ (Value::Number(_) | Value::Bool(_)) => v.to_string(),
                other => {
                    return Err(field_error(
                        "expected_all",
                        format!(
                            "item {}: must be a string, number or boolean, found {other}",
                            at + 1
                        ),
                    ));
                }
            };
            if crate::normalise::normalise_answer(&text).is_empty() {
                return Err(field_error(
                    "expected_all",
                    format!(
                        "item {} ({text:?}) is empty once normalised, so every answer holds it",
                        at + 1
                    ),
                ));
            }
            Ok(text)
        })
        .collect()
}

/// Reads `agent_tools`: names, each once, none empty.
fn read_agent_tools(names: Option<Vec<String>>) -> Result<Vec<String>, BuildError> {
    let names = names.unwrap_or_default();
    for (at, name) in names.iter().enumerate() {
        if name.trim().is_empty() {
            return Err(field_error(
                "agent_tools",
                format!("item {} is empty", at + 1),
            ));
        }
        if names[..at].contains(name) {
            return Err(field_error(
                "agent_tools",
                format!("`{name}` is listed twice"),
            ));
        }
    }
    Ok(names)
}

/// The longest task id: ids name folders (`--keep`) and appear in every result line.
pub const LONGEST_ID: usize = 128;

/// Refuses ids that are too long or hold control characters (a NUL among them).
fn check_id(id: &str) -> Result<(), String> {
    let length = id.chars().count();
    if length > LONGEST_ID {
        return Err(format!(
            "is {length} characters long; at most {LONGEST_ID} are allowed"
        ));
    }
    if let Some(c) = id.chars().find(|c| c.is_control()) {
        return Err(format!(
            "holds the control character U+{:04X}; ids are printable text",
            c as u32
        ));
    }
    Ok(())
}

/// Seed files (`files:`, `state_files:`) by relative path; a value that is not a string
/// is written as pretty JSON.
fn read_seed_files(
    raw: Option<BTreeMap<String, Value>>,
    field: &str,
) -> Result<BTreeMap<String, String>, BuildError> {
    let mut files = BTreeMap::new();
    for (path, content) in raw.unwrap_or_default() {
        check_relative_path(&path).map_err(|m| field_error(field, m))?;
        let text = match content {
            Value::String(s) => s,
            other => serde_json::to_string_pretty(&other).unwrap_or_default(),
        };
        files.insert(path, text);
    }
    check_file_keys(&files).map_err(|m| field_error(field, m))?;
    Ok(files)
}

/// A seed folder (`files_dir:`, `state_dir:`) relative to the task file, made absolute.
fn read_seed_dir(
    dir: Option<String>,
    task_dir: &Path,
    field: &str,
) -> Result<Option<PathBuf>, BuildError> {
    let Some(dir) = dir else {
        return Ok(None);
    };
    check_relative_path(&dir).map_err(|m| field_error(field, m))?;
    let resolved = task_dir.join(&dir);
    if !resolved.is_dir() {
        return Err(field_error(
            field,
            format!("{} is not a folder", resolved.display()),
        ));
    }
    check_no_escaping_links(&resolved).map_err(|m| field_error(field, m))?;
    // Absolute, so sandboxes can be filled whatever the working directory.
    let absolute = resolved
        .canonicalize()
        .map_err(|e| field_error(field, format!("{}: {e}", resolved.display())))?;
    Ok(Some(absolute))
}

/// Refuses `files:` keys that name a folder (`dir/`) or overlap (`a` and `a/b`: one
/// would have to be both a file and a folder).
fn check_file_keys(files: &BTreeMap<String, String>) -> Result<(), String> {
    for key in files.keys() {
        if key.ends_with('/') {
            return Err(format!("{key:?} names a folder; keys name files"));
        }
        if key.contains('\0') {
            return Err(format!("{key:?} holds a NUL"));
        }
        let inside = format!("{key}/");
        if let Some((other, _)) = files.range(inside.clone()..).next()
            && other.starts_with(&inside)
        {
            return Err(format!(
                "{key:?} and {other:?} overlap: {key:?} cannot be a file and a folder"
            ));
        }
    }
    Ok(())
}

/// Refuses a seed folder holding symlinks that point outside it, or anything but
/// files, folders and links to them (a FIFO would hang the copy into the sandbox).
fn check_no_escaping_links(dir: &Path) -> Result<(), String> {
    let root = dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut pending = vec![dir.to_owned()];
    while let Some(current) = pending.pop() {
        let entries =
            std::fs::read_dir(&current).map_err(|e| format!("{}: {e}", current.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let meta =
                std::fs::symlink_metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            if meta.file_type().is_symlink() {
                let target = path
                    .canonicalize()
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                if !target.starts_with(&root) {
                    return Err(format!(
                        "{} is a symlink that leaves the seed folder",
                        path.display()
                    ));
                }
                let pointed =
                    std::fs::metadata(&target).map_err(|e| format!("{}: {e}", path.display()))?;
                if !(pointed.is_file() || pointed.is_dir()) {
                    return Err(format!(
                        "{} links to a FIFO, socket or device; seed folders hold files and folders only",
                        path.display()
                    ));
                }
            } else if meta.is_dir() {
                pending.push(path);
            } else if !meta.is_file() {
                return Err(format!(
                    "{} is a FIFO, socket or device; seed folders hold files and folders only",
                    path.display()
                ));
            }
        }
    }
    Ok(())
}
