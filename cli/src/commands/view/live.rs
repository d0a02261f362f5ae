//! A results file being written: its new lines read as they come, from where the last read
//! ended, so following a run costs what it writes and not what it has written
//! (docs/viewing.md#following-a-run).

use super::found::open_regular;
use super::summary::Summariser;
use proctor_core::result::ResultLine;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Bytes read per look: a run that wrote more since is caught up over the next looks.
const READ_PER_LOOK: u64 = 64 << 20;
/// A line longer than this is counted bad and skipped rather than held.
const LONGEST_LINE: usize = 64 << 20;

#[derive(Debug)]
pub struct LiveFeed {
    pub summariser: Summariser,
    /// Where the next read starts: just after the last whole line.
    offset: u64,
    /// A line still being written.
    pending: Vec<u8>,
    /// Skipping the rest of a line over [`LONGEST_LINE`].
    skipping: bool,
}

impl LiveFeed {
    pub fn new(shown_path: &str) -> LiveFeed {
        LiveFeed {
            summariser: Summariser::new(shown_path),
            offset: 0,
            pending: Vec::new(),
            skipping: false,
        }
    }

    /// Where reading has reached; a file now shorter was started again.
    pub fn offset(&self) -> u64 {
        self.offset + self.pending.len() as u64
    }

    /// Reads what was written since the last look; true when a whole line was added.
    pub fn feed(&mut self, path: &Path) -> std::io::Result<bool> {
        let mut file = open_regular(path)?;
        file.seek(SeekFrom::Start(self.offset()))?;
        let mut fresh = Vec::new();
        file.take(READ_PER_LOOK).read_to_end(&mut fresh)?;
        let mut added = false;
        let mut rest = fresh.as_slice();
        while let Some(end) = memchr::memchr(b'\n', rest) {
            let (part, after) = rest.split_at(end);
            rest = &after[1..];
            let line_len = self.pending.len() + part.len() + 1;
            if self.skipping {
                self.skipping = false;
                self.summariser.bad_line();
            } else {
                self.pending.extend_from_slice(part);
                let line = std::mem::take(&mut self.pending);
                added |= self.take_line(&line);
            }
            self.offset += line_len as u64;
        }
        if self.skipping || self.pending.len() + rest.len() > LONGEST_LINE {
            self.offset += (self.pending.len() + rest.len()) as u64;
            self.pending.clear();
            self.skipping = true;
        } else {
            self.pending.extend_from_slice(rest);
        }
        Ok(added)
    }

    fn take_line(&mut self, line: &[u8]) -> bool {
        let Ok(text) = std::str::from_utf8(line) else {
            self.summariser.bad_line();
            return false;
        };
        let text = text.trim();
        if text.is_empty() {
            return false;
        }
        match ResultLine::parse(text) {
            Ok(line) => {
                self.summariser.add(&line);
                true
            }
            Err(_) => {
                self.summariser.bad_line();
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn lines_are_taken_whole_as_they_are_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let line = r#"{"format":"proctor.result/1","task":"t","attempt":0,"passed":true}"#;
        let mut file = std::fs::File::create(&path).unwrap();
        let mut feed = LiveFeed::new("r.jsonl");
        write!(file, "{line}\n{}", &line[..20]).unwrap();
        assert!(feed.feed(&path).unwrap());
        assert_eq!(feed.summariser.summary().done, 1);
        assert!(!feed.feed(&path).unwrap());
        writeln!(
            file,
            "{}",
            &line[20..].replace("\"attempt\":0", "\"attempt\":1")
        )
        .unwrap();
        writeln!(file, "not json").unwrap();
        assert!(feed.feed(&path).unwrap());
        let summary = feed.summariser.summary();
        assert_eq!((summary.done, summary.bad_lines), (2, 1));
        assert_eq!(summary.agents[0].pass_rate, "1.0000");
    }
}
