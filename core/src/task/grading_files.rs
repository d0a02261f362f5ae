//! The files a task names for grading, which an agent must never see (docs/agent-protocol.md).

use super::model::Task;
use crate::end_state::{EndStateCheck, split_command_line};
use std::path::{Component, Path, PathBuf};

impl Task {
    /// Every file the task names, resolved against its task file's folder: the task
    /// file itself, the seed folder, `file_equals … from:` and `schema_file:` files, the
    /// files a `command` check's words name there (its script), and the files of its
    /// script tools. Paths are as the task file gives them, relative to the working
    /// directory when the task file's path is.
    pub fn grading_files(&self) -> Vec<PathBuf> {
        let folder = self.source.parent().unwrap_or(Path::new(""));
        let mut files = vec![self.source.clone()];
        files.extend(self.files_dir.clone());
        files.extend(self.state_dir.clone());
        for check in &self.verify {
            match check {
                EndStateCheck::FileEquals {
                    from: Some(file), ..
                }
                | EndStateCheck::JsonSchema {
                    schema_file: Some(file),
                    ..
                } => files.push(folder.join(file)),
                EndStateCheck::Command { run, .. } => {
                    // A word naming a file of the task's folder: the check's script.
                    let words = split_command_line(run).unwrap_or_default();
                    files.extend(
                        words
                            .iter()
                            .map(Path::new)
                            // Never `.` or `..`: the folder itself is not the script;
                            // `./check.sh` is `check.sh`.
                            .map(|w| w.strip_prefix(".").unwrap_or(w))
                            .filter(|w| {
                                w.components().next().is_some()
                                    && w.components().all(|c| matches!(c, Component::Normal(_)))
                            })
                            .map(|w| folder.join(w))
                            .filter(|p| p.is_file()),
                    );
                }
                _ => {}
            }
        }
        for tool in &self.tools {
            files.extend(tool.script_files().iter().cloned());
        }
        files
    }
}

#[cfg(test)]
mod tests {
    use crate::task::Suite;

    #[test]
    fn every_file_named_for_grading_is_listed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("tools")).unwrap();
        for name in ["expected.txt", "check.py", "tool.py", "tools/verify.sh"] {
            std::fs::write(root.join(name), "x").unwrap();
        }
        std::fs::write(root.join("schema.json"), "{}").unwrap();
        std::fs::create_dir(root.join("seeds")).unwrap();
        let tasks = root.join("tasks.yaml");
        std::fs::write(
            &tasks,
            "- id: t\n  input: go\n  files_dir: seeds\n  verify:\n\
             \x20   - {file_equals: a.txt, from: expected.txt}\n\
             \x20   - {json_schema: a.json, schema_file: schema.json}\n\
             \x20   - {command: \"python3 check.py .\"}\n\
             \x20   - {command: \"sh ./tools/verify.sh\"}\n\
             \x20 tools:\n    - name: refund\n      script: python3 tool.py\n",
        )
        .unwrap();
        let suite = Suite::load(&tasks).unwrap();
        let mut files: Vec<String> = suite.tasks[0]
            .grading_files()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        files.sort();
        // `.` in the command names the task's folder, never hidden as a script.
        assert_eq!(
            files,
            [
                "check.py",
                "expected.txt",
                "schema.json",
                "seeds",
                "tasks.yaml",
                "tool.py",
                "verify.sh"
            ]
        );
    }
}
