//! Majority vote over samples, and the flip rate.
//!
//! A verdict needs a strict majority of all samples, errors included: with 3 samples,
//! PASS PASS error passes, but PASS FAIL error is undecided. A tie is never a pass, nor
//! a fail: the run is left ungraded, for a person to look at. An odd number of samples
//! avoids ties between two decided verdicts.

use super::Decision;

/// The counts behind a vote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Samples that said PASS.
    pub pass: usize,
    /// Samples that said FAIL.
    pub fail: usize,
    /// Samples without a verdict.
    pub errors: usize,
}

impl Tally {
    /// All samples, decided or not.
    pub fn samples(&self) -> usize {
        self.pass + self.fail + self.errors
    }

    /// The share of decided samples that disagree with the majority of decided samples
    /// (the minority's share; 0.5 on a tie). `None` when no sample decided.
    pub fn flip_rate(&self) -> Option<f64> {
        let decided = self.pass + self.fail;
        (decided > 0).then(|| self.pass.min(self.fail) as f64 / decided as f64)
    }

    /// The verdict with a strict majority of all samples, or why there is none.
    pub fn verdict(&self) -> Result<Decision, String> {
        let n = self.samples();
        if self.pass * 2 > n {
            Ok(Decision::Pass)
        } else if self.fail * 2 > n {
            Ok(Decision::Fail)
        } else if self.pass == self.fail && self.errors == 0 {
            Err(format!(
                "samples tied {} PASS to {} FAIL (a tie is not a verdict)",
                self.pass, self.fail
            ))
        } else {
            Err(format!(
                "no majority of {n} samples: {} PASS, {} FAIL, {} undecided",
                self.pass, self.fail, self.errors
            ))
        }
    }
}

/// Counts the samples (`None` for a sample that gave no verdict).
pub fn majority(samples: &[Option<Decision>]) -> Tally {
    let mut tally = Tally {
        pass: 0,
        fail: 0,
        errors: 0,
    };
    for sample in samples {
        match sample {
            Some(Decision::Pass) => tally.pass += 1,
            Some(Decision::Fail) => tally.fail += 1,
            None => tally.errors += 1,
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use Decision::{Fail, Pass};

    #[test]
    fn strict_majority_of_all_samples() {
        assert_eq!(majority(&[Some(Pass)]).verdict(), Ok(Pass));
        assert_eq!(
            majority(&[Some(Pass), Some(Fail), Some(Fail)]).verdict(),
            Ok(Fail)
        );
        assert_eq!(
            majority(&[Some(Pass), Some(Pass), None]).verdict(),
            Ok(Pass)
        );
        let split = majority(&[Some(Pass), Some(Fail), None])
            .verdict()
            .unwrap_err();
        assert_eq!(
            split,
            "no majority of 3 samples: 1 PASS, 1 FAIL, 1 undecided"
        );
        assert!(majority(&[Some(Pass), None]).verdict().is_err());
        assert!(majority(&[None]).verdict().is_err());
    }

    #[test]
    fn a_tie_is_not_a_pass() {
        let tie = majority(&[Some(Pass), Some(Fail), Some(Fail), Some(Pass)]);
        assert_eq!(
            tie.verdict(),
            Err("samples tied 2 PASS to 2 FAIL (a tie is not a verdict)".to_owned())
        );
        assert_eq!(tie.flip_rate(), Some(0.5));
    }

    #[test]
    fn flip_rate_is_the_minority_share() {
        assert_eq!(majority(&[Some(Pass)]).flip_rate(), Some(0.0));
        let five = majority(&[Some(Pass), Some(Pass), Some(Fail), Some(Pass), Some(Pass)]);
        assert_eq!(five.flip_rate(), Some(0.2));
        assert_eq!(majority(&[None, None]).flip_rate(), None);
    }
}
