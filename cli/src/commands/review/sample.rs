//! Which attempts are offered, in what order.
//!
//! Without `--sample` every judged attempt is offered, judge-PASS first, each class in file
//! order. With `--sample N`, N are drawn: split between judge-PASS and judge-FAIL attempts as
//! advised (by the allocation rule of `calibrate --label-budget`), a class with too few attempts giving the rest to the
//! other, and within each class the attempts with the smallest seeded hash of task and
//! attempt. The draw depends only on the seed and the attempts, not on the file order, and
//! an attempt appended later never displaces one drawn before. The drawn attempts are shown
//! in hash order, the two classes mixed, so that the order does not hint at the verdict.

use super::attempts::Attempt;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// How the sample was split, shown at the top of the page.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub size: u64,
    pub seed: u64,
    /// Judged attempts there were of each class.
    pub available_pass: u64,
    pub available_fail: u64,
    /// How many of each class were drawn.
    pub judge_pass: u64,
    pub judge_fail: u64,
    /// The advice followed: `calibrate --label-budget N`'s split, or `even` when the
    /// labels so far cannot give one.
    pub rule: String,
}

/// The advised split of a budget: (judge-PASS, judge-FAIL), or `None` for an even split.
pub type Advice = Option<(u64, u64)>;

/// The offered attempts (indices into `attempts`) and, with `--sample`, the plan.
pub fn draw(
    attempts: &[Attempt],
    size: Option<u64>,
    seed: u64,
    advice: Advice,
) -> (Vec<usize>, Option<Plan>) {
    let (mut passed, mut failed): (Vec<usize>, Vec<usize>) =
        (0..attempts.len()).partition(|&i| attempts[i].judge.is_pass());
    let Some(size) = size else {
        passed.extend(failed);
        return (passed, None);
    };
    let key = |&i: &usize| draw_key(seed, &attempts[i].task, attempts[i].attempt);
    passed.sort_by_cached_key(key);
    failed.sort_by_cached_key(key);
    let (available_pass, available_fail) = (passed.len() as u64, failed.len() as u64);
    let (want_pass, rule) = match advice {
        Some((pass, _)) => (pass, "calibrate --label-budget"),
        None => (size.div_ceil(2), "even"),
    };
    let mut pass = want_pass.min(available_pass);
    let fail = (size - pass.min(size)).min(available_fail);
    // The class that ran short gives its share to the other.
    pass = (size - fail).min(available_pass);
    let mut drawn: Vec<usize> = passed[..pass as usize]
        .iter()
        .chain(&failed[..fail as usize])
        .copied()
        .collect();
    drawn.sort_by_cached_key(key);
    let plan = Plan {
        size,
        seed,
        available_pass,
        available_fail,
        judge_pass: pass,
        judge_fail: fail,
        rule: rule.to_owned(),
    };
    (drawn, Some(plan))
}

/// The place of an attempt in the draw: SHA-256 of a versioned, length-prefixed encoding
/// of the seed, the task and the attempt.
fn draw_key(seed: u64, task: &str, attempt: u64) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(b"proctor.review-sample/1\0");
    hasher.update(seed.to_le_bytes());
    hasher.update((task.len() as u64).to_le_bytes());
    hasher.update(task.as_bytes());
    hasher.update(attempt.to_le_bytes());
    hasher.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proctor_core::calibrate::Label;

    fn attempts(pass: u64, fail: u64) -> Vec<Attempt> {
        (0..pass + fail)
            .map(|i| Attempt {
                task: "t".to_owned(),
                attempt: i,
                agent: None,
                judge: if i < pass { Label::Pass } else { Label::Fail },
                reasoning: String::new(),
                answer: None,
                sandbox: None,
            })
            .collect()
    }

    #[test]
    fn without_a_sample_every_attempt_judge_pass_first() {
        let mut all = attempts(2, 2);
        all.swap(0, 3);
        let (order, plan) = draw(&all, None, 0, None);
        assert_eq!(order, [1, 3, 0, 2]);
        assert!(plan.is_none());
    }

    #[test]
    fn the_advice_splits_the_sample_and_a_short_class_gives_way() {
        let all = attempts(10, 3);
        let (order, plan) = draw(&all, Some(6), 7, Some((2, 4)));
        let plan = plan.unwrap();
        assert_eq!((plan.judge_pass, plan.judge_fail), (3, 3));
        assert_eq!(order.len(), 6);
        let (_, even) = draw(&all, Some(5), 7, None);
        let even = even.unwrap();
        assert_eq!(
            (even.judge_pass, even.judge_fail, even.rule.as_str()),
            (3, 2, "even")
        );
        let (_, all_of_them) = draw(&all, Some(50), 7, None);
        assert_eq!(all_of_them.unwrap().judge_pass, 10);
    }

    #[test]
    fn the_draw_is_the_same_for_the_same_seed_and_file_order_does_not_matter() {
        let all = attempts(20, 20);
        let (first, _) = draw(&all, Some(8), 1, None);
        let (again, _) = draw(&all, Some(8), 1, None);
        assert_eq!(first, again);
        let (other, _) = draw(&all, Some(8), 2, None);
        assert_ne!(first, other);
        let reversed: Vec<Attempt> = all.iter().rev().cloned().collect();
        let (drawn, _) = draw(&reversed, Some(8), 1, None);
        let names = |order: &[usize], list: &[Attempt]| {
            let mut names: Vec<u64> = order.iter().map(|&i| list[i].attempt).collect();
            names.sort_unstable();
            names
        };
        assert_eq!(names(&first, &all), names(&drawn, &reversed));
    }
}
