//! The labels file: the CSV `proctor calibrate --labels` reads, appended to one label at a
//! time under an exclusive `flock` (as the ledger appends), each label synced to disk before
//! the page is told it is saved. Several reviews can write the same file at once: each
//! append reads the file under the lock first, so a rater never labels an attempt twice.
//!
//! A new file gets the header `task,attempt,human,rater,note,timestamp`. An existing file
//! keeps its own columns: rows are written in its header's order, with empty cells for
//! columns review does not know, and `note`/`timestamp` left out where it has no such column.
//! Text cells that start like a spreadsheet formula are written with a leading `'` and read
//! back without it (docs/calibrating.md).

use crate::exit::InputContext;
use proctor_core::calibrate::{Label, guard_cell, unguard_cell};
use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The columns of a new labels file.
pub const HEADER: [&str; 6] = ["task", "attempt", "human", "rater", "note", "timestamp"];

/// A column of the file, by what review writes into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Task,
    Attempt,
    Human,
    Rater,
    Note,
    Timestamp,
    Other,
}

impl Column {
    fn of(name: &str) -> Column {
        match name.trim().to_ascii_lowercase().as_str() {
            "task" => Column::Task,
            "attempt" => Column::Attempt,
            "human" => Column::Human,
            "rater" => Column::Rater,
            "note" => Column::Note,
            "timestamp" => Column::Timestamp,
            _ => Column::Other,
        }
    }
}

/// One label read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredLabel {
    pub task: String,
    pub attempt: u64,
    pub human: Label,
    /// Empty when the row names no rater.
    pub rater: String,
    pub note: String,
    pub timestamp: String,
}

/// A label to append.
#[derive(Debug, Clone)]
pub struct NewLabel<'a> {
    pub task: &'a str,
    pub attempt: u64,
    pub human: Label,
    pub rater: &'a str,
    pub note: &'a str,
}

/// Why an append wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum AppendError {
    #[error("{rater} already labelled task {task} attempt {attempt} {human} in this file")]
    AlreadyLabelled {
        rater: String,
        task: String,
        attempt: u64,
        human: Label,
    },
    #[error(transparent)]
    Io(#[from] anyhow::Error),
}

#[derive(Debug)]
pub struct LabelsFile {
    path: PathBuf,
    columns: Vec<Column>,
}

impl LabelsFile {
    /// Opens `path`, creating it with [`HEADER`] when missing or empty. An existing file
    /// must have the columns task, attempt, human and rater (the rater tells raters apart).
    pub fn open(path: &Path) -> anyhow::Result<LabelsFile> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| crate::exit::infrastructure(parent.display(), e))?;
        }
        let mut file = locked(path)?;
        if file.metadata()?.len() == 0 {
            file.write_all(format!("{}\n", HEADER.join(",")).as_bytes())
                .and_then(|()| file.sync_data())
                .map_err(|e| crate::exit::infrastructure(path.display(), e))?;
        }
        file.seek(SeekFrom::Start(0))?;
        let mut reader = csv::ReaderBuilder::new().from_reader(&file);
        let header = reader
            .headers()
            .with_input_context(|| format!("{}:1: cannot read the header line", path.display()))?;
        let columns: Vec<Column> = header.iter().map(Column::of).collect();
        for (needed, name) in [
            (Column::Task, "task"),
            (Column::Attempt, "attempt"),
            (Column::Human, "human"),
            (Column::Rater, "rater"),
        ] {
            if !columns.contains(&needed) {
                crate::exit::bail_input!(
                    "{}:1: the header has no `{name}` column (it has: {}); review writes the columns {}: add the column, or give another --labels file",
                    path.display(),
                    header.iter().collect::<Vec<_>>().join(", "),
                    HEADER.join(",")
                );
            }
        }
        Ok(LabelsFile {
            path: path.to_owned(),
            columns,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every readable label in the file, under a shared lock so that no half-written row is
    /// seen. Rows that are not labels are left for `calibrate` to report.
    pub fn read(&self) -> anyhow::Result<Vec<StoredLabel>> {
        let file = File::open(&self.path)
            .map_err(|e| crate::exit::infrastructure(self.path.display(), e))?;
        file.lock_shared()
            .map_err(|e| crate::exit::infrastructure(self.path.display(), e))?;
        let labels = self.rows(&file);
        let _ = file.unlock();
        labels
    }

    fn rows(&self, file: &File) -> anyhow::Result<Vec<StoredLabel>> {
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .flexible(true)
            .from_reader(file);
        let mut labels = Vec::new();
        for record in reader.records() {
            let Ok(record) = record else { continue };
            let cell = |wanted: Column| {
                self.columns
                    .iter()
                    .position(|c| *c == wanted)
                    .and_then(|i| record.get(i))
                    .unwrap_or_default()
            };
            let (Ok(attempt), Ok(human)) =
                (cell(Column::Attempt).parse(), cell(Column::Human).parse())
            else {
                continue;
            };
            let text = |wanted: Column| unguard_cell(cell(wanted)).to_owned();
            labels.push(StoredLabel {
                task: text(Column::Task),
                attempt,
                human,
                rater: text(Column::Rater),
                note: text(Column::Note),
                timestamp: cell(Column::Timestamp).to_owned(),
            });
        }
        Ok(labels)
    }

    /// Appends `label` with the time now, synced to disk, unless its rater already labelled
    /// that attempt; returns every label in the file after the append.
    pub fn append(&self, label: &NewLabel) -> Result<Vec<StoredLabel>, AppendError> {
        let io = |e: std::io::Error| crate::exit::infrastructure(self.path.display(), e);
        let mut file = locked(&self.path)?;
        let mut labels = self.rows(&file)?;
        if let Some(earlier) = labels
            .iter()
            .find(|l| l.rater == label.rater && l.task == label.task && l.attempt == label.attempt)
        {
            return Err(AppendError::AlreadyLabelled {
                rater: label.rater.to_owned(),
                task: label.task.to_owned(),
                attempt: label.attempt,
                human: earlier.human,
            });
        }
        let timestamp = format!("{:.3}", jiff::Timestamp::now());
        let stored = StoredLabel {
            task: label.task.to_owned(),
            attempt: label.attempt,
            human: label.human,
            rater: label.rater.to_owned(),
            note: label.note.to_owned(),
            timestamp,
        };
        let attempt = stored.attempt.to_string();
        let cells: Vec<Cow<str>> = self
            .columns
            .iter()
            .map(|column| match column {
                Column::Task => guard_cell(&stored.task),
                Column::Attempt => attempt.as_str().into(),
                Column::Human => stored.human.name().into(),
                Column::Rater => guard_cell(&stored.rater),
                Column::Note => guard_cell(&stored.note),
                Column::Timestamp => stored.timestamp.as_str().into(),
                Column::Other => "".into(),
            })
            .collect();
        let mut row = csv::Writer::from_writer(Vec::new());
        row.write_record(cells.iter().map(|c| c.as_bytes()))
            .map_err(|e| anyhow::anyhow!(e))?;
        let row = row
            .into_inner()
            .map_err(|e| anyhow::anyhow!(e.to_string()))?;
        // A file whose last line has no line end (written by hand) gets one first, so the
        // new row does not run into it.
        let len = file.metadata().map_err(io)?.len();
        if len > 0 {
            let mut last = [0u8];
            file.seek(SeekFrom::Start(len - 1)).map_err(io)?;
            file.read_exact(&mut last).map_err(io)?;
            if last[0] != b'\n' {
                file.write_all(b"\n").map_err(io)?;
            }
        }
        file.write_all(&row).map_err(io)?;
        file.sync_data().map_err(io)?;
        labels.push(stored);
        Ok(labels)
    }
}

/// The file opened for reading and appending, under an exclusive lock held until it is
/// dropped (closing the file releases a `flock`).
fn locked(path: &Path) -> anyhow::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| crate::exit::infrastructure(path.display(), e))?;
    file.lock()
        .map_err(|e| crate::exit::infrastructure(path.display(), e))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label<'a>(task: &'a str, attempt: u64, rater: &'a str) -> NewLabel<'a> {
        NewLabel {
            task,
            attempt,
            human: Label::Pass,
            rater,
            note: "a \"quoted\", note\nover two lines",
        }
    }

    #[test]
    fn appends_rows_that_read_back_and_refuses_a_second_label_by_the_same_rater() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("labels.csv");
        let file = LabelsFile::open(&path).unwrap();
        let after = file.append(&label("t@v", 3, "ann")).unwrap();
        assert_eq!(after.len(), 1);
        file.append(&label("t@v", 3, "bo")).unwrap();
        let again = file.append(&label("t@v", 3, "ann")).unwrap_err();
        assert!(
            matches!(again, AppendError::AlreadyLabelled { .. }),
            "{again}"
        );
        let read = LabelsFile::open(&path).unwrap().read().unwrap();
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].note, "a \"quoted\", note\nover two lines");
        assert_eq!(
            (read[1].task.as_str(), read[1].rater.as_str()),
            ("t@v", "bo")
        );
        assert!(read[0].timestamp.ends_with('Z'), "{}", read[0].timestamp);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("task,attempt,human,rater,note,timestamp\n"));
    }

    #[test]
    fn notes_that_start_like_formulas_are_written_as_text_and_read_back_as_typed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("labels.csv");
        let file = LabelsFile::open(&path).unwrap();
        let hyperlink = "=HYPERLINK(\"http://evil.example\",\"open\")";
        for (attempt, note) in [(0, hyperlink), (1, "-5"), (2, "'tis fine")] {
            file.append(&NewLabel {
                note,
                ..label("t", attempt, "ann")
            })
            .unwrap();
        }
        // As a spreadsheet sees the cells: text, never a formula.
        let cells: Vec<String> = csv::Reader::from_path(&path)
            .unwrap()
            .records()
            .map(|r| r.unwrap()[4].to_owned())
            .collect();
        assert_eq!(
            cells,
            [format!("'{hyperlink}"), "'-5".into(), "'tis fine".into()]
        );
        let read = LabelsFile::open(&path).unwrap().read().unwrap();
        let notes: Vec<&str> = read.iter().map(|l| l.note.as_str()).collect();
        assert_eq!(notes, [hyperlink, "-5", "'tis fine"]);
    }

    #[test]
    fn a_hand_written_file_keeps_its_columns_and_gets_a_line_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("labels.csv");
        std::fs::write(&path, "rater,task,attempt,human\ncy,t,0,FAIL").unwrap();
        let file = LabelsFile::open(&path).unwrap();
        file.append(&label("t", 1, "cy")).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "rater,task,attempt,human\ncy,t,0,FAIL\ncy,t,1,PASS\n"
        );
        std::fs::write(&path, "task,attempt,human\n").unwrap();
        let err = LabelsFile::open(&path).unwrap_err().to_string();
        assert!(
            err.contains(":1: the header has no `rater` column"),
            "{err}"
        );
    }
}
