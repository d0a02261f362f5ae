//! The files an attempt left behind, when its sandbox was kept (`run --keep`, `grade
//! --workdir`, `judge --keep`, `report --keep`): listed against the task's seed as the judge
//! sees them (added, modified, unchanged, deleted; size and SHA-256; the start of each text
//! file), with symlinks and special files listed and never followed or opened.

use crate::run::sandbox::kept_folder;
use proctor_core::task::Suite;
use proctor_judge::Seed;
use proctor_judge::bundle::{Bundle, BundleLimits, Content, collect};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Text shown of one file.
const PER_FILE_BYTES: usize = 4 * 1024;
/// Text shown of one attempt's files together.
const PER_ATTEMPT_BYTES: usize = 16 * 1024;
/// Files listed per attempt; the rest are counted.
const MAX_FILES: usize = 100;
/// Text shown of every attempt's files together, so that a large run keeps a small page;
/// after it, files are still listed, without their text.
const PER_PAGE_BYTES: usize = 8 * 1024 * 1024;

/// Where the kept sandboxes are, and what each task's sandbox started with.
#[derive(Debug)]
pub struct EndStateDir {
    root: PathBuf,
    /// `grade --workdir DIR` also takes DIR itself as the end state of every attempt.
    root_is_end_state: bool,
    seeds: HashMap<String, Seed>,
}

impl EndStateDir {
    /// Sandboxes kept by `run --keep DIR` (`DIR/<agent>/<task>/<attempt>/` or
    /// `DIR/<task>/<attempt>/`); with `root_is_end_state`, DIR itself when neither exists.
    pub fn new(root: &Path, root_is_end_state: bool, suite: Option<&Suite>) -> EndStateDir {
        // A seed that cannot be read leaves its files "added"; the listing is still right.
        let seeds = suite
            .map(|s| s.tasks.iter())
            .into_iter()
            .flatten()
            .filter_map(|t| Seed::from_task(t).ok().map(|seed| (t.id.clone(), seed)))
            .collect();
        EndStateDir {
            root: root.to_owned(),
            root_is_end_state,
            seeds,
        }
    }

    fn sandbox(&self, task: &str, label: Option<&str>, attempt: u64) -> Option<PathBuf> {
        let by_label = label.map(|l| kept_folder(&self.root, Some(l), task, attempt));
        let kept = kept_folder(&self.root, None, task, attempt);
        by_label
            .into_iter()
            .chain([kept])
            .chain(self.root_is_end_state.then(|| self.root.clone()))
            .find(|dir| dir.is_dir())
    }
}

/// Lists end states for a page, within its text budget.
#[derive(Debug)]
pub struct EndStateLister<'a> {
    dir: &'a EndStateDir,
    text_left: usize,
}

impl<'a> EndStateLister<'a> {
    pub fn new(dir: &'a EndStateDir) -> Self {
        EndStateLister {
            dir,
            text_left: PER_PAGE_BYTES,
        }
    }

    /// The listing of one attempt's sandbox, or `None` when none was kept.
    pub fn listing(&mut self, task: &str, label: Option<&str>, attempt: u64) -> Option<Value> {
        let sandbox = self.dir.sandbox(task, label, attempt)?;
        let base = task.split_once('@').map_or(task, |(base, _)| base);
        let seed = self
            .dir
            .seeds
            .get(task)
            .or_else(|| self.dir.seeds.get(base))
            .cloned()
            .unwrap_or_default();
        let limits = BundleLimits {
            per_file: PER_FILE_BYTES,
            total: PER_ATTEMPT_BYTES.min(self.text_left),
            max_files: MAX_FILES,
        };
        let folder = sandbox.display().to_string();
        Some(match collect(Some(&sandbox), &seed, &[], "", limits) {
            Ok(bundle) => {
                let value = listing_json(&bundle, folder);
                self.text_left -= shown_text(&bundle).min(self.text_left);
                value
            }
            Err(e) => json!({"folder": folder, "error": e.to_string()}),
        })
    }
}

fn shown_text(bundle: &Bundle) -> usize {
    bundle
        .entries
        .iter()
        .map(|e| match &e.content {
            Content::Text { text, .. } => text.len(),
            _ => 0,
        })
        .sum()
}

fn listing_json(bundle: &Bundle, folder: String) -> Value {
    let files: Vec<Value> = bundle
        .entries
        .iter()
        .map(|entry| {
            let mut file = Map::new();
            file.insert("path".into(), json!(entry.path));
            file.insert("status".into(), json!(entry.status.name()));
            file.insert("size".into(), json!(entry.size));
            file.insert("sha256".into(), json!(entry.sha256));
            let note = match &entry.content {
                Content::Text { text, hidden } => {
                    file.insert("text".into(), json!(text));
                    (*hidden > 0).then(|| format!("{hidden} more bytes not shown"))
                }
                Content::OverBudget => {
                    Some("text not shown: the report's text budget is spent".into())
                }
                Content::Binary => Some("binary, not shown".into()),
                Content::Symlink { target } => Some(format!("symlink to {target}, not followed")),
                Content::Special => Some("FIFO, socket or device, not opened".into()),
                Content::Unreadable(reason) => Some(format!("unreadable: {reason}")),
                Content::Gone => Some("deleted".into()),
            };
            if let Some(note) = note {
                file.insert("note".into(), json!(note));
            }
            Value::Object(file)
        })
        .collect();
    json!({"folder": folder, "files": files, "unlisted": bundle.unlisted})
}
