//! The runs list as the page reads it (`/api/runs`): one row per results file, newest first,
//! each agent's figures with its verdict against the previous run of the same suite and
//! agent (docs/viewing.md#the-runs).

use super::catalog::{Catalog, Entry};
use super::found::Stamp;
use super::summary::{AgentFigures, instant_order};
use jiff::Timestamp;
use proctor_core::compare::{CompareOptions, DEFAULT_MARGIN, Side, compare};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Verdicts already computed, by the two files as they were (ids and stamps) and the
/// agent: a comparison is made once, not at every publication of the list.
#[derive(Debug, Default)]
pub struct Verdicts {
    known: HashMap<PairKey, Result<String, String>>,
}

/// The older file (id, stamp), the newer, and the agent.
type PairKey = (String, Stamp, String, Stamp, String);

/// The verdict of one agent's run against its previous run.
struct Against {
    previous: String,
    verdict: Result<String, String>,
}

/// The list (the caller adds its version).
pub fn runs_json(
    catalog: &Catalog,
    roots: &[std::path::PathBuf],
    now: Timestamp,
    known: &mut Verdicts,
) -> Value {
    let mut entries: Vec<&Entry> = catalog.entries.values().collect();
    // Newest first; files without a time last.
    entries.sort_by(|a, b| {
        let by_time = match (when(a), when(b)) {
            (Some(a), Some(b)) => instant_order(b, a),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        };
        by_time.then_with(|| a.found.path.cmp(&b.found.path))
    });
    let parts = parts_of_runs(&entries);
    entries.retain(|e| !parts.values().flatten().any(|p| std::ptr::eq(*p, *e)));
    let verdicts = verdicts(&entries, known);
    let runs: Vec<Value> = entries
        .iter()
        .map(|entry| {
            let mut row = run_json(entry, &verdicts, now);
            let shown: Vec<&str> = parts
                .get(entry.id.as_str())
                .into_iter()
                .flatten()
                .map(|p| p.found.shown.as_str())
                .collect();
            row["parts"] = json!(shown);
            row
        })
        .collect();
    let mut notes = catalog.notes.clone();
    if catalog.waiting > 0 {
        notes.push(format!(
            "summarising {} more results files…",
            catalog.waiting
        ));
    }
    json!({
        "roots": roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>(),
        "scanning": catalog.waiting > 0,
        "notes": notes,
        "runs": runs,
    })
}

/// The files that are parts of another file's run: the shards of a run whose merged file is
/// listed too. Of the files sharing a run id, one whose lines come from several shards is
/// the merge, the run's row; the files of one shard each are named in it. Shards of a run not
/// merged yet stay rows of their own.
fn parts_of_runs<'e>(entries: &[&'e Entry]) -> HashMap<&'e str, Vec<&'e Entry>> {
    let mut by_run: BTreeMap<&str, Vec<&Entry>> = BTreeMap::new();
    for entry in entries {
        if let Some(run) = entry.summary.run_id.as_deref() {
            by_run.entry(run).or_default().push(entry);
        }
    }
    let mut parts = HashMap::new();
    for files in by_run.into_values().filter(|f| f.len() > 1) {
        let merged = files
            .iter()
            .filter(|f| f.summary.shards.len() > 1 && !f.live)
            .max_by(|a, b| {
                a.summary
                    .done
                    .cmp(&b.summary.done)
                    .then_with(|| b.found.path.cmp(&a.found.path))
            });
        let Some(merged) = merged else {
            continue;
        };
        let shards: Vec<&Entry> = files
            .iter()
            .copied()
            .filter(|f| {
                f.summary.shards.len() == 1 && merged.summary.shards.contains(&f.summary.shards[0])
            })
            .collect();
        if !shards.is_empty() {
            parts.insert(merged.id.as_str(), shards);
        }
    }
    parts
}

/// When a run started: its first attempt, else its record.
fn when(entry: &Entry) -> Option<&str> {
    entry
        .summary
        .first_start
        .as_deref()
        .or(entry.record.as_ref().map(|r| r.started_at.as_str()))
}

fn run_json(entry: &Entry, verdicts: &HashMap<(&str, &str), Against>, now: Timestamp) -> Value {
    let summary = &entry.summary;
    let record = entry.record.as_ref();
    let planned = record.map(|r| r.planned);
    let done = summary.done;
    let progress = match planned {
        Some(planned) => format!("{done} of {planned}"),
        None => done.to_string(),
    };
    let time_left = if entry.live {
        record.and_then(|r| time_left(r, done, now))
    } else {
        None
    };
    let agents: Vec<Value> = summary
        .agents
        .iter()
        .map(|a| agent_json(a, verdicts.get(&(entry.id.as_str(), a.agent.as_str()))))
        .collect();
    let suite_name = match record {
        Some(r) => Path::new(&r.tasks)
            .file_name()
            .map_or_else(|| r.tasks.clone(), |n| n.to_string_lossy().into_owned()),
        None => short_digest(&summary.digest),
    };
    let when = when(entry);
    json!({
        "id": entry.id,
        "file": entry.found.shown,
        "path": entry.found.path.display().to_string(),
        "run_id": summary.run_id.as_deref().or(record.map(|r| r.run_id.as_str())),
        "suite": summary.digest,
        "suite_name": suite_name,
        "task_file": record.map(|r| r.tasks.as_str()),
        "when": when,
        "when_shown": when.map_or_else(|| crate::render::numbers::MISSING.to_owned(), when_shown),
        "live": entry.live,
        "done": done.to_string(),
        "planned": planned.map(|p| p.to_string()),
        "progress": progress,
        "time_left": time_left,
        "bad_lines": summary.bad_lines,
        "error": summary.error,
        "agents": agents,
    })
}

fn agent_json(a: &AgentFigures, against: Option<&Against>) -> Value {
    let (verdict, verdict_error) = match against.map(|x| &x.verdict) {
        Some(Ok(v)) => (Some(v.as_str()), None),
        Some(Err(e)) => (None, Some(e.as_str())),
        None => (None, None),
    };
    json!({
        "agent": a.agent,
        "attempts": a.attempts.to_string(),
        "pass_rate": a.pass_rate,
        "pass_rate_ci": a.pass_rate_ci,
        "cost_per_success": a.cost_per_success,
        "cost_usd": a.cost_usd,
        "cost_is_lower_bound": a.cost_is_lower_bound,
        "previous": against.map(|x| x.previous.as_str()),
        "verdict": verdict,
        "verdict_error": verdict_error,
        "chart": a.chart,
    })
}

/// For each run and agent, `proctor compare PREVIOUS THIS --labels A,A`'s verdict, where
/// PREVIOUS is the latest earlier run of the same suite (task digest) and agent.
fn verdicts<'e>(
    newest_first: &[&'e Entry],
    known: &mut Verdicts,
) -> HashMap<(&'e str, &'e str), Against> {
    let mut series: BTreeMap<(&str, &str), Vec<(&Entry, &AgentFigures)>> = BTreeMap::new();
    // Without a time there is no "previous": such files get no verdict.
    for entry in newest_first.iter().rev().filter(|e| when(e).is_some()) {
        for agent in &entry.summary.agents {
            series
                .entry((entry.summary.digest.as_str(), agent.agent.as_str()))
                .or_default()
                .push((entry, agent));
        }
    }
    let options = CompareOptions {
        margin: DEFAULT_MARGIN,
        allow_different_tasks: false,
    };
    let mut found = HashMap::new();
    let mut used = Vec::new();
    for runs in series.values() {
        for pair in runs.windows(2) {
            let [(old_entry, old), (new_entry, new)] = pair else {
                continue;
            };
            let key = (
                old_entry.id.clone(),
                old_entry.found.stamp,
                new_entry.id.clone(),
                new_entry.found.stamp,
                new.agent.clone(),
            );
            let verdict = match known.known.get(&key) {
                Some(verdict) => verdict.clone(),
                None => {
                    let verdict = verdict_of(old, new, &options);
                    known.known.insert(key.clone(), verdict.clone());
                    verdict
                }
            };
            used.push(key);
            found.insert(
                (new_entry.id.as_str(), new.agent.as_str()),
                Against {
                    previous: old_entry.id.clone(),
                    verdict,
                },
            );
        }
    }
    // Forget the verdicts of files changed or gone.
    let used: std::collections::HashSet<_> = used.into_iter().collect();
    known.known.retain(|key, _| used.contains(key));
    found
}

/// `compare OLD NEW`'s verdict for one agent's tallies, or why there is none.
fn verdict_of(
    old: &AgentFigures,
    new: &AgentFigures,
    options: &CompareOptions,
) -> Result<String, String> {
    match (&old.tally, &new.tally) {
        (Some(old_tally), Some(new_tally)) => {
            let mut old_tally = old_tally.clone();
            old_tally.side = Side::Old;
            compare(old_tally, new_tally.clone(), options)
                .map(|c| c.verdict.as_str().to_owned())
                .map_err(|e| e.to_string())
        }
        _ => Err(old
            .tally_error
            .clone()
            .or_else(|| new.tally_error.clone())
            .unwrap_or_else(|| "not comparable".to_owned())),
    }
}

/// `2026-11-30 10:15 UTC` for an RFC 3339 time; the text itself when it is not one.
pub fn when_shown(text: &str) -> String {
    match text.parse::<Timestamp>() {
        Ok(t) => t.strftime("%Y-%m-%d %H:%M UTC").to_string(),
        Err(_) => text.to_owned(),
    }
}

/// What is left of a live run at the pace of this invocation so far; `None` before its
/// first attempt ends.
fn time_left(record: &crate::run_record::RunRecord, done: u64, now: Timestamp) -> Option<String> {
    let started: Timestamp = record.started_at.parse().ok()?;
    let finished = done.checked_sub(record.done_at_start).filter(|&n| n > 0)?;
    let left = record.planned.saturating_sub(done);
    let elapsed = now.duration_since(started).as_secs_f64().max(0.0);
    Some(duration_shown(elapsed / finished as f64 * left as f64))
}

/// `2h 05m`, `3m 20s`, `45s`.
pub fn duration_shown(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// `sha256:70cad0da` for a task digest; `-` for none.
fn short_digest(digest: &str) -> String {
    if digest.is_empty() {
        return crate::render::numbers::MISSING.to_owned();
    }
    digest.get(..15).unwrap_or(digest).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_times_read_plainly() {
        assert_eq!(duration_shown(44.6), "45s");
        assert_eq!(duration_shown(200.0), "3m 20s");
        assert_eq!(duration_shown(7500.0), "2h 05m");
        assert_eq!(when_shown("2026-11-30T10:15:42.5Z"), "2026-11-30 10:15 UTC");
        assert_eq!(when_shown("yesterday"), "yesterday");
        assert_eq!(short_digest("sha256:70cad0da27c84270"), "sha256:70cad0da");
    }
}
