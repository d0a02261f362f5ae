//! Reading the sandbox into a [`Bundle`]: walking it without following symlinks,
//! selecting files by `judge_files`, comparing with the seed, and spending the text
//! budget.

use super::name::path_text;
use super::seed::normalise_path;
use super::{Bundle, BundleEntry, BundleError, BundleLimits, Content, FileStatus, Seed};
use crate::hash::hex;
use globset::{Glob, GlobSet, GlobSetBuilder};
use proctor_core::agent_file::{human_size, open_regular};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Checks `judge_files` patterns, so that a bad glob is reported before anything runs.
pub fn validate_globs(patterns: &[String]) -> Result<(), BundleError> {
    glob_set(patterns).map(|_| ())
}

/// `None` when no patterns were given: every file is selected. Patterns match the whole
/// relative path, and `*` also crosses `/`, so `*.log` selects logs in any folder.
fn glob_set(patterns: &[String]) -> Result<Option<GlobSet>, BundleError> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = Glob::new(&normalise_path(pattern)).map_err(|e| BundleError::Glob {
            pattern: pattern.clone(),
            detail: e.kind().to_string(),
        })?;
        builder.add(glob);
    }
    builder.build().map(Some).map_err(|e| BundleError::Glob {
        pattern: patterns.join(", "),
        detail: e.to_string(),
    })
}

/// What sits at a path in the sandbox, before reading.
#[derive(Debug, Clone)]
enum Kind {
    File,
    Symlink,
    Special,
    /// Not looked into; the text says why (a folder too deep, unreadable, ...).
    Skipped(String),
}

/// Folders nested deeper than this are listed, not entered: a tree deeper than
/// PATH_MAX cannot turn an attempt into "ungraded".
const MAX_DEPTH: usize = 16;
/// Entries the walk looks at in all, whatever the tree's shape.
const MAX_ENTRIES: usize = 10_000;
/// The largest file hashed and shown.
const MAX_FILE_READ: u64 = 64 << 20;
/// Bytes hashed over the whole bundle.
const MAX_TOTAL_READ: u64 = 256 << 20;

/// How much of the walk and the reading is left.
#[derive(Debug)]
struct Budget {
    entries: usize,
    bytes: u64,
}

/// Builds the bundle of `sandbox` (None: no sandbox was kept) against `seed`. Past
/// `max_files`, the files `rubric` or `judge_files` name and the files the agent changed
/// are listed before unchanged seed files (see `choose`).
pub fn collect(
    sandbox: Option<&Path>,
    seed: &Seed,
    judge_files: &[String],
    rubric: &str,
    limits: BundleLimits,
) -> Result<Bundle, BundleError> {
    let globs = glob_set(judge_files)?;
    let selected = |path: &str| globs.as_ref().is_none_or(|set| set.is_match(path));
    let Some(root) = sandbox else {
        return Ok(Bundle {
            sandbox: false,
            globs: judge_files.to_vec(),
            limits,
            ..Bundle::default()
        });
    };

    let mut found = BTreeMap::new();
    let mut budget = Budget {
        entries: MAX_ENTRIES,
        bytes: MAX_TOTAL_READ,
    };
    std::fs::read_dir(root).map_err(|source| BundleError::Sandbox {
        path: root.to_owned(),
        source,
    })?;
    walk(root, root, 0, &mut found, &mut budget);
    // Sandbox paths and deleted seed paths, sorted; a BTreeMap keeps the order.
    let mut paths: BTreeMap<String, Option<(Kind, PathBuf)>> = found
        .into_iter()
        .filter(|(path, _)| selected(path))
        .map(|(path, found)| (path, Some(found)))
        .collect();
    for (path, _) in seed.iter() {
        if selected(path) {
            paths.entry(path.to_owned()).or_insert(None);
        }
    }
    let count = paths.len();
    let named = |path: &str| {
        mentions(rubric, path) || judge_files.iter().any(|p| normalise_path(p) == path)
    };
    let read = choose(paths, seed, &named, limits, &mut budget);
    let unlisted = count - read.len();
    let (mut entries, prefixes): (Vec<BundleEntry>, Vec<Option<Vec<u8>>>) =
        read.into_iter().unzip();
    spend_budget(&mut entries, prefixes, limits.total);
    Ok(Bundle {
        sandbox: true,
        globs: judge_files.to_vec(),
        entries,
        unlisted,
        limits,
    })
}

/// An entry read, with the prefix of its text (see [`read_entry`]).
type Listed = (BundleEntry, Option<Vec<u8>>);

/// Reads the entries to list, at most `max_files`, sorted by path. When there are more,
/// first come the files `named` names, then the files the agent changed (added, deleted,
/// not a regular file), then seed files in path order, modified before unchanged: each
/// is hashed to tell which, and an unchanged one is kept only while it may still be
/// listed, so memory holds at most `max_files` texts. Only unchanged seed files are cut
/// before the others.
fn choose(
    paths: BTreeMap<String, Option<(Kind, PathBuf)>>,
    seed: &Seed,
    named: &dyn Fn(&str) -> bool,
    limits: BundleLimits,
    budget: &mut Budget,
) -> Vec<Listed> {
    let mut read = |path: &str, found| read_entry(path, found, seed, limits.per_file, budget);
    if paths.len() <= limits.max_files {
        return paths
            .into_iter()
            .map(|(path, found)| read(&path, found))
            .collect();
    }
    let mut first = Vec::new();
    let mut changed = Vec::new();
    let mut seeded = Vec::new();
    for (path, found) in paths {
        let plain_seed_file = seed.get(&path).is_some() && matches!(found, Some((Kind::File, _)));
        if named(&path) {
            first.push((path, found));
        } else if plain_seed_file {
            seeded.push((path, found));
        } else {
            changed.push((path, found));
        }
    }
    let mut listed: Vec<Listed> = Vec::new();
    for (path, found) in first.into_iter().chain(changed) {
        if listed.len() == limits.max_files {
            break;
        }
        listed.push(read(&path, found));
    }
    let mut unchanged: Vec<Listed> = Vec::new();
    for (path, found) in seeded {
        if listed.len() == limits.max_files {
            break;
        }
        let entry = read(&path, found);
        if entry.0.status != FileStatus::Unchanged {
            listed.push(entry);
        } else if listed.len() + unchanged.len() < limits.max_files {
            unchanged.push(entry);
        }
        // The latest unchanged file gives way to a modified one.
        unchanged.truncate(limits.max_files - listed.len());
    }
    listed.extend(unchanged);
    listed.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    listed
}

/// Whether `rubric` names the file at `path`: its path or its file name, not as part of a
/// longer name (`refund_errors.log.` at a sentence's end counts).
fn mentions(rubric: &str, path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let part = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '\\');
    [path, name].into_iter().any(|needle| {
        !needle.is_empty()
            && rubric.match_indices(needle).any(|(at, _)| {
                let before = rubric[..at].chars().next_back();
                let rest = &rubric[at + needle.len()..];
                let mut after = rest.chars();
                let ends = match after.next() {
                    None => true,
                    Some('.') => !after.next().is_some_and(|c| part(c) || c == '.'),
                    Some(c) => !part(c),
                };
                ends && !before.is_some_and(|c| part(c) || c == '.')
            })
    })
}

/// Lists the files under `dir`, entering real folders only, at most [`MAX_DEPTH`]
/// deep and [`MAX_ENTRIES`] in all. The agent made this tree: a folder that cannot
/// be read is an entry saying so, never an error that leaves the attempt ungraded.
fn walk(
    root: &Path,
    dir: &Path,
    depth: usize,
    found: &mut BTreeMap<String, (Kind, PathBuf)>,
    budget: &mut Budget,
) {
    let relative = |path: &Path| path_text(path.strip_prefix(root).unwrap_or(path));
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            found.insert(
                relative(dir),
                (
                    Kind::Skipped(format!("folder cannot be read: {e}")),
                    dir.to_owned(),
                ),
            );
            return;
        }
    };
    for entry in entries {
        let Ok(entry) = entry else { continue };
        if budget.entries == 0 {
            found.insert(
                relative(dir),
                (
                    Kind::Skipped(format!("the walk stopped after {MAX_ENTRIES} entries")),
                    dir.to_owned(),
                ),
            );
            return;
        }
        budget.entries -= 1;
        let path = entry.path();
        // `file_type` does not follow symlinks.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let name = relative(&path);
        let kind = if kind.is_dir() {
            if depth + 1 < MAX_DEPTH {
                walk(root, &path, depth + 1, found, budget);
                continue;
            }
            Kind::Skipped(format!(
                "folders nested over {MAX_DEPTH} deep are not entered"
            ))
        } else if kind.is_symlink() {
            Kind::Symlink
        } else if kind.is_file() {
            Kind::File
        } else {
            Kind::Special
        };
        found.insert(name, (kind, path));
    }
}

/// One entry, with the first `per_file` bytes of a regular file (for text detection
/// and display); the hash covers the whole file. `found` is what the walk found at
/// `path` and where (`None`: a seed file gone from the sandbox).
fn read_entry(
    path: &str,
    found: Option<(Kind, PathBuf)>,
    seed: &Seed,
    per_file: usize,
    budget: &mut Budget,
) -> (BundleEntry, Option<Vec<u8>>) {
    let seeded = seed.get(path);
    let status = |sha256: &str| match seeded {
        None => FileStatus::Added,
        Some(file) if file.sha256 == sha256 => FileStatus::Unchanged,
        Some(_) => FileStatus::Modified,
    };
    let entry = |size, sha256: String, content| BundleEntry {
        path: path.to_owned(),
        status: status(&sha256),
        size,
        sha256,
        content,
    };
    let Some((kind, full)) = found else {
        let file = seeded.cloned().unwrap_or_else(|| super::SeedFile {
            size: 0,
            sha256: String::new(),
        });
        let gone = BundleEntry {
            path: path.to_owned(),
            status: FileStatus::Deleted,
            size: file.size,
            sha256: file.sha256,
            content: Content::Gone,
        };
        return (gone, None);
    };
    match kind {
        Kind::Symlink => {
            let target = std::fs::read_link(&full)
                .map(|t| t.to_string_lossy().into_owned())
                .unwrap_or_default();
            let sha = crate::hash::sha256_hex(target.as_bytes());
            (
                entry(target.len() as u64, sha, Content::Symlink { target }),
                None,
            )
        }
        Kind::Special => (entry(0, String::new(), Content::Special), None),
        Kind::Skipped(why) => (entry(0, String::new(), Content::Unreadable(why)), None),
        Kind::File => match hash_with_prefix(&full, per_file, budget) {
            Ok((size, sha, prefix)) => {
                if is_text(&prefix, size) {
                    let placeholder = Content::Text {
                        text: String::new(),
                        hidden: 0,
                    };
                    (entry(size, sha, placeholder), Some(prefix))
                } else {
                    (entry(size, sha, Content::Binary), None)
                }
            }
            Err(why) => (entry(0, String::new(), Content::Unreadable(why)), None),
        },
    }
}

/// Size, SHA-256 and the first `keep` bytes, in one pass over the file; a file over
/// [`MAX_FILE_READ`] or past the bundle's read budget is not read.
fn hash_with_prefix(
    path: &Path,
    keep: usize,
    budget: &mut Budget,
) -> Result<(u64, String, Vec<u8>), String> {
    let (file, length) = open_regular(path).map_err(|e| e.to_string())?;
    if length > MAX_FILE_READ {
        return Err(format!(
            "{} is over the {} limit",
            human_size(length),
            human_size(MAX_FILE_READ)
        ));
    }
    if length > budget.bytes {
        return Err(format!(
            "not read: the bundle's {} read limit is spent",
            human_size(MAX_TOTAL_READ)
        ));
    }
    budget.bytes -= length;
    // Never past the size seen: a process left behind may still be writing.
    let mut file = file.take(length);
    let mut hasher = Sha256::new();
    let mut prefix = Vec::new();
    let mut size = 0u64;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = file.read(&mut buffer).map_err(|e| e.to_string())?;
        if read == 0 {
            break;
        }
        let chunk = &buffer[..read];
        hasher.update(chunk);
        if prefix.len() < keep {
            let room = keep - prefix.len();
            prefix.extend_from_slice(&chunk[..room.min(read)]);
        }
        size += read as u64;
    }
    Ok((size, hex(&hasher.finalize()), prefix))
}

/// Text means UTF-8 without NUL bytes. Only the prefix is looked at; a prefix cut in the
/// middle of a character still counts as text.
fn is_text(prefix: &[u8], size: u64) -> bool {
    if prefix.contains(&0) {
        return false;
    }
    match std::str::from_utf8(prefix) {
        Ok(_) => true,
        // An incomplete character at the end is fine only where the prefix was cut.
        Err(e) => e.error_len().is_none() && (prefix.len() as u64) < size,
    }
}

/// Fills in the text of text entries. The total budget goes first to added and modified
/// files, then to unchanged ones, each group in path order: what the agent wrote matters
/// most. Cuts fall on character boundaries.
fn spend_budget(entries: &mut [BundleEntry], prefixes: Vec<Option<Vec<u8>>>, total: usize) {
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| entries[i].status == FileStatus::Unchanged);
    let mut prefixes = prefixes;
    let mut left = total;
    for i in order {
        let Some(prefix) = prefixes[i].take() else {
            continue;
        };
        let entry = &mut entries[i];
        if left == 0 && !prefix.is_empty() {
            entry.content = Content::OverBudget;
            continue;
        }
        let valid = match std::str::from_utf8(&prefix) {
            Ok(text) => text,
            Err(e) => std::str::from_utf8(&prefix[..e.valid_up_to()]).unwrap_or_default(),
        };
        let mut cut = valid.len().min(left);
        while !valid.is_char_boundary(cut) {
            cut -= 1;
        }
        left -= cut;
        entry.content = Content::Text {
            text: valid[..cut].to_owned(),
            hidden: entry.size - cut as u64,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_detection() {
        assert!(is_text(b"hello", 5));
        assert!(is_text(b"", 0));
        assert!(!is_text(b"a\0b", 3));
        assert!(!is_text(&[0xff, 0xfe], 2));
        // "é" is 0xc3 0xa9: cut after the first byte of a longer file, still text.
        assert!(is_text(&[b'a', 0xc3], 3));
        // The same bytes as the whole file are not valid text.
        assert!(!is_text(&[b'a', 0xc3], 2));
    }

    #[test]
    fn budget_prefers_changed_files_and_cuts_on_char_boundaries() {
        let text_entry = |path: &str, status, size| BundleEntry {
            path: path.into(),
            status,
            size,
            sha256: String::new(),
            content: Content::Text {
                text: String::new(),
                hidden: 0,
            },
        };
        let mut entries = vec![
            text_entry("a.txt", FileStatus::Unchanged, 4),
            text_entry("b.txt", FileStatus::Added, 4),
        ];
        let prefixes = vec![Some(b"aaaa".to_vec()), Some("bé!".as_bytes().to_vec())];
        spend_budget(&mut entries, prefixes, 2);
        // "b" (1 byte) fits, "é" (2 bytes) would cross the budget of 2.
        assert_eq!(
            entries[1].content,
            Content::Text {
                text: "b".into(),
                hidden: 3
            }
        );
        assert_eq!(
            entries[0].content,
            Content::Text {
                text: "a".into(),
                hidden: 3
            }
        );
    }

    #[test]
    fn deep_trees_and_huge_files_are_bounded_not_errors() {
        let dir = tempfile::tempdir().unwrap();
        // 40 folders of 120 characters: deeper than PATH_MAX (4096 bytes).
        let made = std::process::Command::new("python3")
            .arg("-c")
            .arg("import os\nfor _ in range(40):\n    os.mkdir('d' * 120)\n    os.chdir('d' * 120)\nopen('leaf.txt', 'w').write('x')\n")
            .current_dir(dir.path())
            .status()
            .unwrap();
        assert!(made.success());
        let huge = std::fs::File::create(dir.path().join("report.txt")).unwrap();
        huge.set_len(6 << 30).unwrap();
        let bundle = collect(
            Some(dir.path()),
            &Seed::default(),
            &[],
            "",
            BundleLimits::default(),
        )
        .unwrap();
        let report = bundle
            .entries
            .iter()
            .find(|e| e.path == "report.txt")
            .unwrap();
        assert_eq!(
            report.content,
            Content::Unreadable("6.0 GiB is over the 64 MiB limit".to_owned())
        );
        let deep = bundle
            .entries
            .iter()
            .find(|e| matches!(&e.content, Content::Unreadable(why) if why.contains("nested over 16 deep")))
            .expect("the deep folder is listed as not entered");
        assert_eq!(deep.path.matches('/').count(), 15);
    }

    #[test]
    fn a_rubric_names_a_file_by_its_path_or_name() {
        let rubric = "PASS only if logs/refund_errors.log notes O1002. See notes.txt.";
        assert!(mentions(rubric, "logs/refund_errors.log"));
        assert!(mentions(rubric, "notes.txt"));
        assert!(mentions(rubric, "archive/notes.txt"));
        assert!(!mentions(rubric, "errors.log"));
        assert!(!mentions(rubric, "refund_errors.log.bak"));
        assert!(!mentions(rubric, "O100"));
        assert!(!mentions(rubric, "txt"));
    }

    #[test]
    fn bad_globs_name_the_pattern() {
        let err = validate_globs(&["logs/[".to_owned()]).unwrap_err();
        assert!(err.to_string().contains("\"logs/[\""), "{err}");
        assert!(validate_globs(&["*.log".to_owned()]).is_ok());
    }
}
