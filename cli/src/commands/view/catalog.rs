//! Every run under the viewed paths, kept up to date: found by [`super::found`], summarised
//! once (or taken from [`super::cache`]), followed line by line while a `proctor run` holds
//! its file (docs/viewing.md).

use super::cache::Cache;
use super::found::{Finder, Found};
use super::live::LiveFeed;
use super::summary::{FileSummary, summarise};
use crate::run_record::RunRecord;
use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

/// How often the list is published while files are being summarised: the page shows the runs
/// as they come, and the workers never wait for it.
const PUBLISH_EVERY: Duration = Duration::from_millis(500);

/// One results file and what is known of it.
#[derive(Debug)]
pub struct Entry {
    /// Stable for the file's path: what the page names it by.
    pub id: String,
    pub found: Found,
    pub summary: FileSummary,
    pub record: Option<RunRecord>,
    /// A `proctor run` holds the file's lock: it is being written.
    pub live: bool,
    feed: Option<LiveFeed>,
}

#[derive(Debug)]
pub struct Catalog {
    roots: Vec<PathBuf>,
    finder: Finder,
    cache: Cache,
    pub entries: BTreeMap<PathBuf, Entry>,
    pub notes: Vec<String>,
    /// Files found but not summarised yet.
    pub waiting: usize,
}

impl Catalog {
    pub fn new(roots: Vec<PathBuf>, cache: Cache) -> Catalog {
        let skipped = cache.dir().map(Path::to_owned).into_iter().collect();
        Catalog {
            roots,
            finder: Finder::new(skipped),
            cache,
            entries: BTreeMap::new(),
            notes: Vec::new(),
            waiting: 0,
        }
    }

    /// Looks at the folders again; `publish` is called after each batch of files
    /// summarised, and the return says whether anything changed.
    pub fn refresh(&mut self, mut publish: impl FnMut(&Catalog)) -> bool {
        let walk = self.finder.walk(&self.roots);
        let locks = crate::lock_holder::locks_now().unwrap_or_default();
        let mut changed = walk.notes != self.notes;
        self.notes = walk.notes;
        let present: std::collections::HashSet<&PathBuf> =
            walk.files.iter().map(|f| &f.path).collect();
        let before = self.entries.len();
        self.entries.retain(|path, _| present.contains(path));
        changed |= self.entries.len() != before;
        let mut to_summarise = Vec::new();
        for found in walk.files {
            let dev = std::fs::symlink_metadata(&found.path)
                .map(|m| m.dev())
                .unwrap_or_default();
            let live = crate::lock_holder::writer_in(&locks, dev, found.stamp.inode).is_some();
            match self.entries.get_mut(&found.path) {
                Some(entry) if entry.found.stamp == found.stamp && entry.live == live => {}
                Some(entry) if live => {
                    changed |= follow(entry, found);
                }
                _ if live => {
                    let mut entry = new_entry(found, None);
                    entry.live = true;
                    let found = entry.found.clone();
                    follow(&mut entry, found);
                    self.entries.insert(entry.found.path.clone(), entry);
                    changed = true;
                }
                _ => match self.cache.get(&found.path, found.stamp) {
                    Some(summary) => {
                        let entry = new_entry(found, Some(summary));
                        self.entries.insert(entry.found.path.clone(), entry);
                        changed = true;
                    }
                    None => to_summarise.push(found),
                },
            }
        }
        self.waiting = to_summarise.len();
        if to_summarise.is_empty() {
            return changed;
        }
        if changed {
            publish(self);
        }
        let mut published = Instant::now();
        let cache = self.cache.clone();
        let (sender, received) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(move || summarise_all(&to_summarise, &cache, sender));
            for (found, summary) in received {
                let entry = new_entry(found, Some(summary));
                self.entries.insert(entry.found.path.clone(), entry);
                self.waiting -= 1;
                if published.elapsed() >= PUBLISH_EVERY {
                    publish(self);
                    published = Instant::now();
                }
            }
        });
        true
    }
}

fn new_entry(found: Found, summary: Option<FileSummary>) -> Entry {
    Entry {
        id: id_of(&found.path),
        record: crate::run_record::read(&found.path),
        summary: summary.unwrap_or_default(),
        found,
        live: false,
        feed: None,
    }
}

/// Reads what a live file added; true when the summary changed. A file now shorter than
/// what was read was started again, and is read from its start.
fn follow(entry: &mut Entry, found: Found) -> bool {
    let shrank = entry
        .feed
        .as_ref()
        .is_some_and(|feed| feed.offset() > found.stamp.size)
        || entry.found.stamp.inode != found.stamp.inode;
    if entry.feed.is_none() || shrank {
        entry.feed = Some(LiveFeed::new(&found.path.display().to_string()));
    }
    if !entry.live {
        entry.live = true;
    }
    entry.record = crate::run_record::read(&found.path);
    entry.found = found;
    let feed = entry.feed.as_mut().expect("set above");
    match feed.feed(&entry.found.path) {
        Ok(_) => {
            entry.summary = feed.summariser.summary();
        }
        Err(e) => {
            entry.summary.error = Some(format!("cannot read: {e}"));
        }
    }
    true
}

/// Summarises files on every core, each as `report` reads it, keeping each summary in the
/// cache and sending it on as soon as it is made.
fn summarise_all(files: &[Found], cache: &Cache, done: Sender<(Found, FileSummary)>) {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let done = done.clone();
            let next = &next;
            scope.spawn(move || {
                while let Some(found) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let summary = summarise(&found.path, &found.path.display().to_string())
                        .unwrap_or_else(|e| FileSummary {
                            error: Some(format!("{e:#}")),
                            ..FileSummary::default()
                        });
                    cache.put(&found.path, found.stamp, &summary);
                    if done.send((found.clone(), summary)).is_err() {
                        break;
                    }
                }
            });
        }
    });
}

/// A file's id: a digest of its path, stable across views.
pub fn id_of(path: &Path) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(path.as_os_str().as_encoded_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}
