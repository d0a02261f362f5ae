//! A suite: every task named by `--tasks`, with a digest that identifies the task
//! files, so results from different task files are never merged or compared by mistake.

use super::error::{Place, TaskError};
use super::load::{SourceFile, load_file, task_files};
use super::model::Task;
use crate::fast_hash::FastBuild;
use crate::short_text::ShortKey;
use hashbrown::HashMap;
use sha2::{Digest, Sha256};
use std::path::Path;

/// The tasks of one or more task files, loaded and checked.
#[derive(Debug, Clone)]
pub struct Suite {
    /// In file order, files in path order.
    pub tasks: Vec<Task>,
    /// `sha256:<hex>` over the task files' names and tasks, in path order, leaving out
    /// the judge's fields (`rubric`, `judge_files`): results stay tied to the suite
    /// through a rubric edit, so they can be judged again.
    pub digest: String,
    /// Looked up for every outcome line graded.
    index: HashMap<String, usize, FastBuild>,
}

impl Suite {
    /// Loads a task file or a folder of task files.
    pub fn load(path: &Path) -> Result<Suite, TaskError> {
        let files = task_files(path)?;
        let mut tasks: Vec<Task> = Vec::new();
        let mut sources: Vec<SourceFile> = Vec::new();
        let mut index: HashMap<String, usize, FastBuild> = HashMap::default();
        for file in &files {
            let (loaded, source) = load_file(file)?;
            for task in loaded {
                if let Some(&first) = index.get(&task.id) {
                    let text = String::from_utf8_lossy(&source.bytes).into_owned();
                    let line_of = |t: &Task, text: &str| super::locate::task_line(text, &t.id);
                    let first_task = &tasks[first];
                    let first_text = sources
                        .iter()
                        .find(|s| s.path == first_task.source)
                        .map(|s| String::from_utf8_lossy(&s.bytes).into_owned())
                        .unwrap_or_else(|| text.clone());
                    return Err(TaskError::Duplicate {
                        place: Place {
                            file: task.source.clone(),
                            line: nth_line_of_id(&text, &task.id, first_task.source == task.source)
                                .or_else(|| line_of(&task, &text)),
                            task: Some(format!("`{}`", task.id)),
                        },
                        first: Box::new(Place {
                            file: first_task.source.clone(),
                            line: line_of(first_task, &first_text),
                            task: None,
                        }),
                    });
                }
                index.insert(task.id.clone(), tasks.len());
                tasks.push(task);
            }
            sources.push(source);
        }
        Ok(Suite {
            tasks,
            digest: digest(&sources),
            index,
        })
    }

    /// The task with this id.
    pub fn get(&self, id: &str) -> Option<&Task> {
        self.find(id).map(|(_, task)| task)
    }

    /// The tags of task `id`; none when the suite does not hold it.
    pub fn tags_of(&self, id: &str) -> &[String] {
        self.get(id).map_or(&[], |task| task.tags.as_slice())
    }

    /// The task `id` with its position in [`Suite::tasks`], by which a caller can keep
    /// counts per task without looking the id up again.
    pub fn find(&self, id: &str) -> Option<(usize, &Task)> {
        self.index.get(&ShortKey(id)).map(|&i| (i, &self.tasks[i]))
    }
}

/// For a duplicate in the same file, the line of the id's second occurrence.
fn nth_line_of_id(text: &str, id: &str, same_file: bool) -> Option<usize> {
    if !same_file {
        return None;
    }
    let first = super::locate::task_line(text, id)?;
    let rest: String = text.lines().skip(first).collect::<Vec<_>>().join("\n");
    super::locate::task_line(&rest, id).map(|l| l + first)
}

fn digest(sources: &[SourceFile]) -> String {
    let mut hasher = Sha256::new();
    for source in sources {
        let name = source
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update((source.graded.len() as u64).to_le_bytes());
        hasher.update(&source.graded);
    }
    let hash = hasher.finalize();
    let mut hex = String::with_capacity(7 + 64);
    hex.push_str("sha256:");
    for byte in hash {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}
