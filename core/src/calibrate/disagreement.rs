//! The items where judge and humans disagree, in the order a reviewer should read them.

use super::Label;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// Which way the judge erred.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// The judge passed what humans failed: bad work gets through, so listed first.
    FalsePass,
    /// The judge failed what humans passed.
    FalseFail,
}

/// One disagreement, with the judge's reasoning to review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    /// The task id, or the calibration set's `id`.
    pub item: String,
    /// The attempt, for items joined from result files.
    pub attempt: Option<u64>,
    /// Which way the judge erred.
    pub direction: Direction,
    /// The humans' (majority) label.
    pub human: Label,
    /// The judge's label.
    pub judge: Label,
    /// Human labels that agree with `human`, of `human_labels`: 3 of 3 is a clearer judge
    /// error than 2 of 3.
    pub human_votes: u64,
    /// Human labels given for the item.
    pub human_labels: u64,
    /// The judge's reasoning.
    pub reasoning: String,
}

impl Disagreement {
    /// Review order: false passes first; then the clearest cases (unanimous humans) first;
    /// then by item and attempt, attempts in numeric order.
    pub fn review_order(&self, other: &Self) -> Ordering {
        self.direction
            .cmp(&other.direction)
            .then_with(|| {
                // votes/labels descending, compared without division.
                (other.human_votes * self.human_labels)
                    .cmp(&(self.human_votes * other.human_labels))
            })
            .then_with(|| self.item.cmp(&other.item))
            .then_with(|| self.attempt.cmp(&other.attempt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(item: &str, attempt: u64, direction: Direction, votes: u64, labels: u64) -> Disagreement {
        let (human, judge) = match direction {
            Direction::FalsePass => (Label::Fail, Label::Pass),
            Direction::FalseFail => (Label::Pass, Label::Fail),
        };
        Disagreement {
            item: item.into(),
            attempt: Some(attempt),
            direction,
            human,
            judge,
            human_votes: votes,
            human_labels: labels,
            reasoning: String::new(),
        }
    }

    #[test]
    fn false_passes_then_clear_cases_then_by_item_and_attempt() {
        let mut list = [
            d("b", 10, Direction::FalseFail, 1, 1),
            d("b", 2, Direction::FalseFail, 1, 1),
            d("a", 0, Direction::FalsePass, 2, 3),
            d("z", 0, Direction::FalsePass, 3, 3),
            d("a", 1, Direction::FalseFail, 2, 3),
        ];
        list.sort_by(Disagreement::review_order);
        let order: Vec<(&str, u64)> = list
            .iter()
            .map(|x| (x.item.as_str(), x.attempt.unwrap()))
            .collect();
        assert_eq!(order, [("z", 0), ("a", 0), ("b", 2), ("b", 10), ("a", 1)]);
    }

    #[test]
    fn directions_serialise_in_snake_case() {
        assert_eq!(
            serde_json::to_string(&Direction::FalsePass).unwrap(),
            "\"false_pass\""
        );
    }
}
