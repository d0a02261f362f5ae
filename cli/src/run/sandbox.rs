//! A fresh sandbox per attempt: the task's seed files and nothing else.

use proctor_core::task::Task;
use std::io;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// The folder an attempt works in; a temporary one is removed when dropped.
#[derive(Debug)]
pub struct Sandbox {
    pub dir: PathBuf,
    _temporary: Option<TempDir>,
}

/// A task id or label as one safe path component.
pub fn path_component(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() || cleaned.chars().all(|c| c == '.') {
        format!("_{cleaned}")
    } else {
        cleaned
    }
}

/// Makes the sandbox: under `keep` as `<keep>/[<label>/]<task>/<attempt>` (emptied
/// first), else in a temporary folder.
pub fn prepare(
    task: &Task,
    keep: Option<&Path>,
    label: Option<&str>,
    attempt: u64,
) -> io::Result<Sandbox> {
    let sandbox = match keep {
        Some(root) => {
            let mut dir = root.to_owned();
            if let Some(label) = label {
                dir.push(path_component(label));
            }
            dir.push(path_component(&task.id));
            dir.push(attempt.to_string());
            if dir.exists() {
                std::fs::remove_dir_all(&dir)?;
            }
            std::fs::create_dir_all(&dir)?;
            Sandbox {
                dir,
                _temporary: None,
            }
        }
        None => {
            let temporary = tempfile::Builder::new()
                .prefix("proctor-sandbox-")
                .tempdir()?;
            Sandbox {
                dir: temporary.path().to_owned(),
                _temporary: Some(temporary),
            }
        }
    };
    if let Some(seeds) = &task.files_dir {
        copy_tree(seeds, &sandbox.dir)?;
    }
    for (relative, content) in &task.files {
        let path = sandbox.dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, content)?;
    }
    Ok(sandbox)
}

/// Copies a seed folder; symlinks (checked at load time to stay inside it) are
/// copied as the files they point to.
fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let source = entry.path();
        let target = to.join(entry.file_name());
        if source.is_dir() {
            std::fs::create_dir_all(&target)?;
            copy_tree(&source, &target)?;
        } else {
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::path_component;

    #[test]
    fn components_cannot_escape() {
        assert_eq!(path_component("refund/../x"), "refund_.._x");
        assert_eq!(path_component(".."), "_..");
        assert_eq!(path_component("ok-1.2"), "ok-1.2");
    }
}
