//! The task × label grid, shared by the text and markdown renderers.

use super::numbers::{MISSING, rate};
use proctor_core::summary::{GridCell, Scorecards, Summary};

/// The task × label grid as rows (header first).
pub fn grid_rows(s: &Summary) -> Vec<Vec<String>> {
    let tasks: Vec<&str> = s.per_task.iter().map(|t| t.task.as_str()).collect();
    grid_table(&tasks, &s.labels, &s.grid)
}

/// The task × agent grid of every agent's scorecard (header first).
pub fn cards_grid_rows(cards: &Scorecards) -> Vec<Vec<String>> {
    let labels: Vec<String> = cards.labels().into_iter().map(str::to_owned).collect();
    grid_table(&cards.tasks(), &labels, &cards.grid())
}

fn grid_table(tasks: &[&str], labels: &[String], grid: &[GridCell]) -> Vec<Vec<String>> {
    let mut header = vec!["task".to_owned()];
    header.extend(labels.iter().cloned());
    let mut rows = vec![header];
    for task in tasks {
        let mut row = vec![(*task).to_owned()];
        for label in labels {
            let found = grid.iter().find(|c| c.task == *task && &c.label == label);
            row.push(found.map_or_else(
                || MISSING.to_owned(),
                |c| format!("{} ({}/{})", rate(c.pass_rate), c.passed, c.graded),
            ));
        }
        rows.push(row);
    }
    rows
}
