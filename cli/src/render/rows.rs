//! Summary rows that every text format shows the same way.

use super::numbers::{one_decimal, rate};
use proctor_core::summary::Summary;

/// Tasks and attempts with their split.
pub fn count_rows(s: &Summary) -> Vec<Vec<String>> {
    vec![
        vec!["tasks".to_owned(), s.tasks.to_string()],
        vec![
            "attempts".to_owned(),
            format!(
                "{} ({} passed, {} failed, {} ungraded)",
                s.attempts, s.passed, s.failed, s.ungraded
            ),
        ],
    ]
}

/// The numbers that are reported but never gate, and the failure buckets.
pub fn process_rows(s: &Summary) -> Vec<Vec<String>> {
    let diagnosis: Vec<String> = s
        .diagnosis
        .iter()
        .map(|(d, n)| format!("{d} {n}"))
        .collect();
    vec![
        vec![
            "mean steps (passed)".to_owned(),
            one_decimal(s.mean_steps_success),
        ],
        vec!["step efficiency".to_owned(), rate(s.step_efficiency)],
        vec!["tool correctness".to_owned(), rate(s.tool_correctness)],
        vec!["failures".to_owned(), diagnosis.join(", ")],
    ]
}
