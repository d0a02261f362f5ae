//! Relative paths from task files, and resolving them inside a sandbox without leaving it.
//! A check's path that starts with `state:` names a file of the attempt's tool state
//! folder instead (docs/tools.md), under the same rules.

use std::path::{Component, Path, PathBuf};

/// The prefix of a check's path that names a file of the tool state folder.
pub const STATE_PREFIX: &str = "state:";

/// The path inside the tool state folder when `path` names one (`state:db.json`).
pub fn state_path(path: &str) -> Option<&str> {
    path.strip_prefix(STATE_PREFIX)
}

/// What a failure says of a symlink out of the folder a check reads.
pub(crate) const LEAVES_SANDBOX: &str = "symlink leaves the sandbox";

/// Validates a relative path from a task file: rejects empty and absolute paths, any `..`
/// component, and paths that name the directory itself (`.`). The message names the path.
/// `state:REL` is checked as `REL`.
pub fn check_relative_path(path: &str) -> Result<(), String> {
    match state_path(path) {
        Some(inside) => check_plain_path(inside, "the state folder")
            .map_err(|message| message.replacen(&format!("{inside:?}"), &format!("{path:?}"), 1)),
        None => check_plain_path(path, "the sandbox"),
    }
}

/// `folder` is what the path is inside, as the message names it.
fn check_plain_path(path: &str, folder: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("empty path".to_owned());
    }
    if path.contains('\0') {
        return Err(format!("path {path:?} contains a NUL byte"));
    }
    let mut named = false;
    for component in Path::new(path).components() {
        match component {
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!("absolute path {path:?} is not allowed"));
            }
            Component::ParentDir => {
                return Err(format!("path {path:?} leaves {folder} (`..`)"));
            }
            Component::CurDir => {}
            Component::Normal(_) => named = true,
        }
    }
    if !named {
        return Err(format!("path {path:?} names {folder} itself"));
    }
    Ok(())
}

/// Where a relative path leads inside a sandbox.
#[derive(Debug, PartialEq)]
pub(crate) enum Resolved {
    /// It exists; the canonical path (symlinks followed, still inside the sandbox).
    Found(PathBuf),
    /// Nothing is there (or only a dangling symlink).
    Missing,
}

/// Resolves `path` under `dir`, following symlinks, and refuses to leave `dir`.
///
/// Errors are failure texts starting with the path, e.g. `report.txt: symlink leaves the
/// sandbox`. When the path does not exist, its deepest existing ancestor must still lie
/// inside `dir`, so that nothing outside is probed either.
pub(crate) fn resolve(dir: &Path, path: &str) -> Result<Resolved, String> {
    check_relative_path(path).map_err(|message| format!("{path}: {message}"))?;
    let root = dir
        .canonicalize()
        .map_err(|e| format!("{path}: cannot open the directory {}: {e}", dir.display()))?;
    let full = root.join(path);
    let mut probe: &Path = &full;
    loop {
        if let Ok(real) = probe.canonicalize() {
            if !real.starts_with(&root) {
                return Err(format!("{path}: {LEAVES_SANDBOX}"));
            }
            return Ok(if probe == full {
                Resolved::Found(real)
            } else {
                Resolved::Missing
            });
        }
        match probe.parent() {
            Some(parent) if parent.starts_with(&root) => probe = parent,
            _ => return Ok(Resolved::Missing),
        }
    }
}

/// Whether any directory entry sits at `path` under `dir`, dangling symlinks included.
/// Only meaningful after [`resolve`] said `Missing` (so the parents stay inside `dir`).
pub(crate) fn entry_exists(dir: &Path, path: &str) -> bool {
    dir.join(path).symlink_metadata().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn accepts_plain_relative_paths() {
        for p in ["a.txt", "out/report.txt", "./a.txt", "a/./b", "dir/"] {
            assert_eq!(check_relative_path(p), Ok(()), "{p}");
        }
    }

    #[test]
    fn rejects_absolute_parent_empty_and_self() {
        assert_eq!(
            check_relative_path("/etc/passwd"),
            Err("absolute path \"/etc/passwd\" is not allowed".to_owned())
        );
        assert_eq!(
            check_relative_path("../x"),
            Err("path \"../x\" leaves the sandbox (`..`)".to_owned())
        );
        assert_eq!(
            check_relative_path("a/../../x"),
            Err("path \"a/../../x\" leaves the sandbox (`..`)".to_owned())
        );
        // Even a `..` that would stay inside is refused: simpler to audit.
        assert!(check_relative_path("a/../b").is_err());
        assert_eq!(check_relative_path(""), Err("empty path".to_owned()));
        assert_eq!(
            check_relative_path("./"),
            Err("path \"./\" names the sandbox itself".to_owned())
        );
        assert!(check_relative_path("a\0b").is_err());
    }

    #[test]
    fn resolves_existing_missing_and_inside_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/a.txt"), "x").unwrap();
        symlink("sub/a.txt", dir.path().join("link")).unwrap();
        let real = dir.path().canonicalize().unwrap().join("sub/a.txt");
        assert_eq!(
            resolve(dir.path(), "sub/a.txt"),
            Ok(Resolved::Found(real.clone()))
        );
        assert_eq!(resolve(dir.path(), "link"), Ok(Resolved::Found(real)));
        assert_eq!(resolve(dir.path(), "nope/x"), Ok(Resolved::Missing));
        assert_eq!(resolve(dir.path(), "sub/a.txt/x"), Ok(Resolved::Missing));
    }

    #[test]
    fn refuses_symlinks_that_leave() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        let dir = tempfile::tempdir().unwrap();
        symlink(outside.path().join("secret"), dir.path().join("report.txt")).unwrap();
        symlink(outside.path(), dir.path().join("out")).unwrap();
        let leaves = |p: &str| Err(format!("{p}: symlink leaves the sandbox"));
        assert_eq!(resolve(dir.path(), "report.txt"), leaves("report.txt"));
        assert_eq!(resolve(dir.path(), "out/secret"), leaves("out/secret"));
        // Not even a missing file is probed through an escaping directory.
        assert_eq!(resolve(dir.path(), "out/none"), leaves("out/none"));
    }

    #[test]
    fn dangling_symlink_is_missing_but_an_entry() {
        let dir = tempfile::tempdir().unwrap();
        symlink("nowhere", dir.path().join("dangling")).unwrap();
        assert_eq!(resolve(dir.path(), "dangling"), Ok(Resolved::Missing));
        assert!(entry_exists(dir.path(), "dangling"));
        assert!(!entry_exists(dir.path(), "other"));
    }

    #[test]
    fn state_paths_follow_the_same_rules() {
        assert_eq!(state_path("state:db.json"), Some("db.json"));
        assert_eq!(state_path("db.json"), None);
        assert_eq!(check_relative_path("state:seeds/db.json"), Ok(()));
        assert_eq!(
            check_relative_path("state:../x"),
            Err("path \"state:../x\" leaves the state folder (`..`)".to_owned())
        );
        assert_eq!(
            check_relative_path("state:/etc/passwd"),
            Err("absolute path \"state:/etc/passwd\" is not allowed".to_owned())
        );
        assert_eq!(check_relative_path("state:"), Err("empty path".to_owned()));
    }

    #[test]
    fn resolve_revalidates_the_path() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            resolve(dir.path(), "../x"),
            Err("../x: path \"../x\" leaves the sandbox (`..`)".to_owned())
        );
    }
}
