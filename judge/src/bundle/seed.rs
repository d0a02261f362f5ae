//! The seed: the files a sandbox starts with, by path, reduced to size and hash so that
//! the end state can be compared without keeping contents around.

use super::BundleError;
use super::name::{name_text, path_text};
use crate::hash::sha256_hex;
use proctor_core::task::Task;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One seed file's fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedFile {
    /// The size in bytes.
    pub size: u64,
    /// SHA-256 (hex) of the contents.
    pub sha256: String,
}

/// The seed files of a task. Cheap to clone: build it once per task, share it across
/// attempts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seed {
    files: Arc<BTreeMap<String, SeedFile>>,
}

impl Seed {
    /// A seed from contents by relative path.
    pub fn from_contents<P, B>(files: impl IntoIterator<Item = (P, B)>) -> Self
    where
        P: AsRef<str>,
        B: AsRef<[u8]>,
    {
        let files = files
            .into_iter()
            .map(|(path, bytes)| (seed_path(path.as_ref()), fingerprint(bytes.as_ref())))
            .collect();
        Seed {
            files: Arc::new(files),
        }
    }

    /// The seed a sandbox of `task` starts with: the folder `files_dir` (resolved
    /// against the task file's folder when relative), then the inline `files`, which win
    /// on a clash since they are written last.
    pub fn from_task(task: &Task) -> Result<Self, BundleError> {
        let mut files = BTreeMap::new();
        if let Some(dir) = &task.files_dir {
            let dir = if dir.is_relative() {
                task.source
                    .parent()
                    .map(|parent| parent.join(dir))
                    .unwrap_or_else(|| dir.clone())
            } else {
                dir.clone()
            };
            read_dir_into(&dir, &dir, &mut files)?;
        }
        for (path, text) in &task.files {
            files.insert(seed_path(path), fingerprint(text.as_bytes()));
        }
        Ok(Seed {
            files: Arc::new(files),
        })
    }

    /// The seed file at `path` (normalised), if any.
    pub fn get(&self, path: &str) -> Option<&SeedFile> {
        self.files.get(path)
    }

    /// Every seed file, sorted by path.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &SeedFile)> {
        self.files.iter().map(|(path, file)| (path.as_str(), file))
    }

    /// True when the sandbox starts with no files.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

fn fingerprint(bytes: &[u8]) -> SeedFile {
    SeedFile {
        size: bytes.len() as u64,
        sha256: sha256_hex(bytes),
    }
}

/// A seed path as sandbox paths are listed: normalised, each name as
/// [`name_text`] writes it.
fn seed_path(path: &str) -> String {
    name_text(OsStr::new(&normalise_path(path)))
}

/// `./a//b/` → `a/b`: the form sandbox paths are listed in.
pub(crate) fn normalise_path(path: &str) -> String {
    path.split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect::<Vec<_>>()
        .join("/")
}

fn read_dir_into(
    root: &Path,
    dir: &Path,
    files: &mut BTreeMap<String, SeedFile>,
) -> Result<(), BundleError> {
    let failed = |path: PathBuf| move |source| BundleError::Seed { path, source };
    for entry in std::fs::read_dir(dir).map_err(failed(dir.to_owned()))? {
        let entry = entry.map_err(failed(dir.to_owned()))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(failed(path.clone()))?;
        if kind.is_dir() {
            read_dir_into(root, &path, files)?;
        } else {
            // Seeds are copied with symlinks followed, so read through them.
            let bytes = std::fs::read(&path).map_err(failed(path.clone()))?;
            let relative = path_text(path.strip_prefix(root).unwrap_or(&path));
            files.insert(relative, fingerprint(&bytes));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_paths() {
        assert_eq!(normalise_path("./a//b/"), "a/b");
        assert_eq!(normalise_path("x.txt"), "x.txt");
    }

    #[test]
    fn reads_a_folder_recursively() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("invoices")).unwrap();
        std::fs::write(dir.path().join("invoices/O1.json"), "{}").unwrap();
        std::fs::write(dir.path().join("orders.json"), "[]").unwrap();
        let mut files = BTreeMap::new();
        read_dir_into(dir.path(), dir.path(), &mut files).unwrap();
        let paths: Vec<&str> = files.keys().map(String::as_str).collect();
        assert_eq!(paths, ["invoices/O1.json", "orders.json"]);
        assert_eq!(files["orders.json"].size, 2);
    }

    #[test]
    fn a_missing_folder_names_the_path() {
        let mut files = BTreeMap::new();
        let err = read_dir_into(
            Path::new("/no/such/seed"),
            Path::new("/no/such/seed"),
            &mut files,
        )
        .unwrap_err();
        assert!(err.to_string().contains("/no/such/seed"), "{err}");
    }
}
