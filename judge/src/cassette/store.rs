//! Cassette files: reading a recording by key, writing one atomically (temporary file,
//! then rename), and explaining a miss.

use super::closest::closest;
use super::recording::{CASSETTE_FORMAT, RecordedResponse, Recording};
use super::{CanonicalRequest, CassetteError};
use crate::client::ChatResponse;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A cassette directory.
#[derive(Debug, Clone)]
pub struct Cassette {
    dir: PathBuf,
    /// One lock per key asked in this process, holding whether this process recorded it:
    /// the same request asked again (by another attempt, or at once by two) is asked of the
    /// model once, in record mode too (docs/judge.md, "Cassettes").
    asked: Arc<Mutex<HashMap<String, Arc<tokio::sync::Mutex<bool>>>>>,
}

/// Distinguishes temporary files of concurrent writes within one process.
static WRITES: AtomicU64 = AtomicU64::new(0);

impl Cassette {
    /// A cassette in `dir`; it is created at the first recording.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Cassette {
            dir: dir.into(),
            asked: Arc::default(),
        }
    }

    /// The lock of `key` in this process, holding whether this process recorded it.
    pub(super) fn asked(&self, key: String) -> Arc<tokio::sync::Mutex<bool>> {
        let mut asked = self.asked.lock().unwrap_or_else(|e| e.into_inner());
        asked.entry(key).or_default().clone()
    }

    /// The cassette directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file a key is recorded in.
    pub fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    /// The recording of `request`, if there is one. A file whose request differs from
    /// the one asked for is an error rather than a silent answer to another question.
    pub fn load(&self, request: &CanonicalRequest) -> Result<Option<Recording>, CassetteError> {
        let key = request.key();
        let path = self.path(&key);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(CassetteError::Corrupt {
                    path,
                    detail: e.to_string(),
                });
            }
        };
        let recording: Recording =
            serde_json::from_str(&text).map_err(|e| CassetteError::Corrupt {
                path: path.clone(),
                detail: e.to_string(),
            })?;
        if recording.request != *request {
            return Err(CassetteError::Mismatch { path, key });
        }
        Ok(Some(recording))
    }

    /// The error for a replay miss: names the key and the closest recorded request.
    pub fn miss(&self, request: &CanonicalRequest) -> CassetteError {
        CassetteError::Miss {
            dir: self.dir.clone(),
            key: request.key(),
            summary: request.summary(),
            closest: closest(&self.dir, request),
        }
    }

    /// Records an exchange: pretty JSON to a temporary file in the same directory, then
    /// a rename, so that readers never see half a file.
    pub fn save(
        &self,
        request: &CanonicalRequest,
        response: &ChatResponse,
    ) -> Result<PathBuf, CassetteError> {
        let key = request.key();
        let path = self.path(&key);
        let recording = Recording {
            format: CASSETTE_FORMAT.to_owned(),
            key,
            request: request.clone(),
            response: RecordedResponse {
                text: response.text.clone(),
                model: response.model.clone(),
            },
            usage: response.usage.clone(),
        };
        let mut text =
            serde_json::to_string_pretty(&recording).expect("a recording always serialises");
        text.push('\n');
        let failed = |path: &Path| {
            let path = path.to_owned();
            move |source| CassetteError::Write { path, source }
        };
        std::fs::create_dir_all(&self.dir).map_err(failed(&self.dir))?;
        let temporary = self.dir.join(format!(
            ".{}.{}.{}.tmp",
            recording.key,
            std::process::id(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&temporary, text).map_err(failed(&temporary))?;
        std::fs::rename(&temporary, &path).map_err(|source| {
            let _ = std::fs::remove_file(&temporary);
            CassetteError::Write {
                path: path.clone(),
                source,
            }
        })?;
        Ok(path)
    }
}
