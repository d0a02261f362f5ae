//! What an isolated agent must still see to start, though it lies in a hidden
//! folder (usually the user's home): its program's folder, the folders of the
//! paths on its command line, its interpreter's whole installation root (a
//! virtualenv, pyenv's shims and versions, a Python under the home folder), and
//! every `--isolate-allow` path. All of it is shown read-only.

use crate::run::agent::AgentSpec;
use std::path::{Path, PathBuf};

pub fn for_agent(agent: &AgentSpec, allow: &[PathBuf]) -> Vec<PathBuf> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .and_then(|h| h.canonicalize().ok());
    let mut visible: Vec<PathBuf> = Vec::new();
    let mut add = |path: PathBuf| {
        // A path through a symlink cannot be mounted on (bubblewrap would follow the
        // link outside the new root): its resolved form, added too, shows the same files.
        if path.canonicalize().is_ok_and(|resolved| resolved != path) {
            return;
        }
        if !visible.contains(&path) {
            visible.push(path);
        }
    };
    let program = if agent.program.contains('/') {
        Some(PathBuf::from(&agent.program))
    } else {
        find_in_path(&agent.program)
    };
    let mut files: Vec<PathBuf> = program.into_iter().collect();
    files.extend(
        agent
            .args
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.is_absolute() && p.exists()),
    );
    for file in files {
        for path in [Some(file.clone()), file.canonicalize().ok()]
            .into_iter()
            .flatten()
        {
            let folder = if path.is_dir() {
                path.clone()
            } else {
                path.parent().map(Path::to_owned).unwrap_or_default()
            };
            if let Some(root) = installation_root(&path, home.as_deref()) {
                add(root);
            }
            if folder.is_absolute() {
                add(folder);
            }
        }
    }
    for path in allow {
        add(path.canonicalize().unwrap_or_else(|_| path.clone()));
    }
    visible
}

/// The folder an interpreter is installed in: the nearest folder holding
/// `pyvenv.cfg` (a virtualenv), else for a path inside the home folder the
/// home's child it sits in (`~/.pyenv`, `~/.local`, `~/miniconda3`).
fn installation_root(path: &Path, home: Option<&Path>) -> Option<PathBuf> {
    if let Some(venv) = path.ancestors().find(|a| a.join("pyvenv.cfg").is_file()) {
        return Some(venv.to_owned());
    }
    let home = home?;
    let inside = path.strip_prefix(home).ok()?;
    let first = inside.components().next()?;
    Some(home.join(first))
}

fn find_in_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreter_roots_under_home_and_virtualenvs() {
        let home = Path::new("/home/u");
        assert_eq!(
            installation_root(Path::new("/home/u/.pyenv/shims/python3"), Some(home)),
            Some(PathBuf::from("/home/u/.pyenv"))
        );
        assert_eq!(
            installation_root(Path::new("/usr/bin/python3"), Some(home)),
            None
        );
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("venv/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(dir.path().join("venv/pyvenv.cfg"), "home = /usr\n").unwrap();
        assert_eq!(
            installation_root(&bin.join("python"), None),
            Some(dir.path().join("venv"))
        );
    }
}
