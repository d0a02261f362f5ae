//! Reading human labels: a CSV file with the columns `task`, `attempt`, `human` and optionally
//! `rater`, in any order; other columns (notes, dates) are ignored. Labels are PASS/FAIL in
//! any case, or 1/0. The `'` that `review` puts before a cell that starts like a spreadsheet
//! formula is taken off again (docs/calibrating.md).

use super::problems::InputProblems;
use crate::exit::InputContext;
use proctor_core::calibrate::{Label, unguard_cell};
use std::collections::HashMap;
use std::path::Path;

/// One label line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelRow {
    /// The line in the file, for messages.
    pub line: u64,
    pub task: String,
    pub attempt: u64,
    /// `None` without a rater column, or when the cell is empty.
    pub rater: Option<String>,
    pub label: Label,
}

/// Reads every usable label; bad lines (unknown labels, bad attempts, duplicates) are reported
/// with file and line and skipped. A missing file or column is an error.
pub fn read_labels(path: &Path, problems: &mut InputProblems) -> anyhow::Result<Vec<LabelRow>> {
    let name = path.display();
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_path(path)
        .with_input_context(|| format!("{name}: cannot read labels"))?;
    let headers = match reader.headers() {
        Ok(headers) => headers.clone(),
        Err(e) => crate::exit::bail_input!(
            "{name}:{}: cannot read the header line: {e}",
            e.position().map_or(1, csv::Position::line)
        ),
    };
    let column = |wanted: &str| headers.iter().position(|h| h.eq_ignore_ascii_case(wanted));
    let (Some(task), Some(attempt), Some(human)) =
        (column("task"), column("attempt"), column("human"))
    else {
        crate::exit::bail_input!(
            "{name}:1: the header needs the columns task, attempt and human (and optionally rater); it has: {}",
            headers.iter().collect::<Vec<_>>().join(", ")
        );
    };
    let rater = column("rater");
    let mut rows = Vec::new();
    let mut seen: HashMap<(String, u64, Option<String>), (u64, Label)> = HashMap::new();
    let mut lines = 0usize;
    for record in reader.records() {
        lines += 1;
        let record = match record {
            Ok(record) => record,
            Err(e) => {
                let line = e.position().map_or(0, csv::Position::line);
                problems.report(format!("{name}:{line}: {e}"));
                continue;
            }
        };
        let line = record.position().map_or(0, csv::Position::line);
        let cell = |i: usize| unguard_cell(record.get(i).unwrap_or_default());
        if record.iter().all(str::is_empty) {
            lines -= 1;
            continue;
        }
        let task_id = cell(task);
        if task_id.is_empty() {
            problems.report(format!("{name}:{line}: the task is empty"));
            continue;
        }
        let Ok(attempt_no) = cell(attempt).parse::<u64>() else {
            problems.report(format!(
                "{name}:{line}: attempt {:?} is not a whole number",
                cell(attempt)
            ));
            continue;
        };
        let label = match cell(human).parse::<Label>() {
            Ok(label) => label,
            Err(e) => {
                problems.report(format!("{name}:{line}: human label {e}"));
                continue;
            }
        };
        let rater_name = rater.map(cell).filter(|r| !r.is_empty()).map(str::to_owned);
        let key = (task_id.to_owned(), attempt_no, rater_name.clone());
        if let Some((first, first_label)) = seen.get(&key) {
            let by = rater_name
                .as_deref()
                .map_or_else(String::new, |r| format!(" by rater {r}"));
            let conflict = if *first_label == label {
                String::new()
            } else {
                format!(" and contradicts it ({first_label} there, {label} here)")
            };
            problems.report(format!(
                "{name}:{line}: duplicate label{by} for task {task_id} attempt {attempt_no}: first on line {first}{conflict}; this line is skipped"
            ));
            continue;
        }
        seen.insert(key, (line, label));
        rows.push(LabelRow {
            line,
            task: task_id.to_owned(),
            attempt: attempt_no,
            rater: rater_name,
            label,
        });
    }
    if lines == 0 {
        crate::exit::bail_input!(
            "{name}: no labels (a header and one line per labelled attempt are needed)"
        );
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (anyhow::Result<Vec<LabelRow>>, usize) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("labels.csv");
        std::fs::write(&path, text).unwrap();
        let mut problems = InputProblems::default();
        let rows = read_labels(&path, &mut problems);
        let count = match problems.into_result() {
            Ok(()) => 0,
            Err(e) => e.to_string().split(' ').next().unwrap().parse().unwrap(),
        };
        (rows, count)
    }

    #[test]
    fn reads_columns_in_any_order_with_optional_rater_and_extra_columns() {
        let (rows, problems) = read("note,human,attempt,task,rater\nok, pass ,0,t,ann\n,0,1,t,\n");
        let rows = rows.unwrap();
        assert_eq!(problems, 0);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].rater.as_deref(), Some("ann"));
        assert_eq!((rows[0].line, rows[0].label), (2, Label::Pass));
        assert_eq!((rows[1].rater.clone(), rows[1].label), (None, Label::Fail));
    }

    #[test]
    fn guarded_task_ids_and_raters_read_as_review_wrote_them() {
        let (rows, problems) = read("task,attempt,human,rater\n'-t,0,PASS,'@ann\n'tis,1,FAIL,bo\n");
        let rows = rows.unwrap();
        assert_eq!(problems, 0);
        assert_eq!(
            (rows[0].task.as_str(), rows[0].rater.as_deref()),
            ("-t", Some("@ann"))
        );
        assert_eq!(rows[1].task, "'tis");
    }

    #[test]
    fn bad_lines_are_skipped_and_counted() {
        let (rows, problems) =
            read("task,attempt,human\nt,0,maybe\nt,x,PASS\n,0,PASS\nt,1,PASS\nt,1,FAIL\n");
        assert_eq!(rows.unwrap().len(), 1);
        assert_eq!(problems, 4);
    }

    #[test]
    fn a_missing_column_or_an_empty_file_is_an_error() {
        let (rows, _) = read("task,run,human\nt,0,PASS\n");
        let err = rows.unwrap_err().to_string();
        assert!(err.contains(":1: the header needs"), "{err}");
        assert!(err.contains("task, run, human"), "{err}");
        let (rows, _) = read("task,attempt,human\n");
        assert!(rows.unwrap_err().to_string().contains("no labels"));
    }
}
