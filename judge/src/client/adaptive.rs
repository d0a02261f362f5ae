//! The bound on model calls in flight, lowered when the server says it is overloaded.
//!
//! Additive increase, multiplicative decrease (AIMD), as TCP does it: a throttled call
//! (429, 503, 529) halves the limit, each success raises it by `1 / limit`, so a full
//! round of successes adds one call, up to the configured `--judge-jobs`. A storm of
//! 429s answered to calls that were all sent at the old limit halves it once, not once
//! per call, so the rate falls to what the server takes instead of to one.

use std::sync::Mutex;
use tokio::sync::{Semaphore, SemaphorePermit};

/// A limit on calls in flight that adapts between 1 and its maximum. Waiters are served
/// first come, first served (a tokio semaphore of `max` places, some withheld while the
/// limit is lower), so that calls started in order end roughly in order.
#[derive(Debug)]
pub struct AdaptiveLimit {
    max: usize,
    places: Semaphore,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// The current limit, between 1 and `max`; its whole part is the places given out.
    limit: f64,
    /// Places given out now: `max` less those withheld.
    allowed: usize,
    /// Places to withhold that were in flight when the limit fell: the next ones freed
    /// are withheld instead.
    owed: usize,
    /// How many calls have started, numbering each call's permit.
    started: u64,
    /// The number of the last call started before the last decrease: throttled answers to
    /// it and earlier calls were already counted in that decrease.
    decreased_at: u64,
}

/// The right to have one call in flight; dropping it frees the place.
#[derive(Debug)]
pub struct Permit<'a> {
    owner: &'a AdaptiveLimit,
    place: Option<SemaphorePermit<'a>>,
    number: u64,
}

impl AdaptiveLimit {
    /// A limit that starts at, and never exceeds, `max` (0 counts as 1).
    pub fn new(max: usize) -> AdaptiveLimit {
        let max = max.max(1);
        AdaptiveLimit {
            max,
            places: Semaphore::new(max),
            state: Mutex::new(State {
                limit: max as f64,
                allowed: max,
                owed: 0,
                started: 0,
                decreased_at: 0,
            }),
        }
    }

    /// The calls that may be in flight now.
    pub fn current(&self) -> usize {
        self.lock().allowed
    }

    /// Waits for a place under the current limit, in turn.
    pub async fn acquire(&self) -> Permit<'_> {
        // The semaphore is never closed, so acquiring cannot fail.
        let place = self.places.acquire().await.ok();
        let mut state = self.lock();
        state.started += 1;
        Permit {
            owner: self,
            place,
            number: state.started,
        }
    }

    /// Sets the limit, giving out or withholding the difference in places.
    fn set_limit(&self, state: &mut State, limit: f64) {
        state.limit = limit.clamp(1.0, self.max as f64);
        let allowed = state.limit as usize;
        while state.allowed < allowed {
            state.allowed += 1;
            if state.owed > 0 {
                state.owed -= 1;
            } else {
                self.places.add_permits(1);
            }
        }
        while state.allowed > allowed {
            state.allowed -= 1;
            match self.places.try_acquire() {
                Ok(place) => place.forget(),
                Err(_) => state.owed += 1,
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // The state is plain numbers, valid after any panic.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Permit<'_> {
    /// The call succeeded: one more call in flight is worth trying.
    pub fn succeeded(&self) {
        let mut state = self.owner.lock();
        let raised = state.limit + 1.0 / state.limit;
        self.owner.set_limit(&mut state, raised);
    }

    /// The server said it is overloaded: halve the limit, once per round of calls.
    pub fn throttled(&self) {
        let mut state = self.owner.lock();
        if self.number > state.decreased_at {
            let halved = state.limit / 2.0;
            self.owner.set_limit(&mut state, halved);
            state.decreased_at = state.started;
        }
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut state = self.owner.lock();
        if let Some(place) = self.place.take()
            && state.owed > 0
        {
            state.owed -= 1;
            place.forget();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_round_of_throttled_calls_halves_the_limit_once() {
        let limit = AdaptiveLimit::new(8);
        let permits: Vec<_> = futures_join(&limit, 8).await;
        assert_eq!(limit.current(), 8);
        for permit in &permits {
            permit.throttled();
        }
        assert_eq!(limit.current(), 4, "eight 429s of one round halve once");
        drop(permits);
        let later = limit.acquire().await;
        later.throttled();
        assert_eq!(
            limit.current(),
            2,
            "a call sent after the decrease counts again"
        );
    }

    #[tokio::test]
    async fn successes_raise_the_limit_back_to_its_maximum_and_no_further() {
        let limit = AdaptiveLimit::new(4);
        limit.acquire().await.throttled();
        assert_eq!(limit.current(), 2);
        for _ in 0..3 {
            limit.acquire().await.succeeded();
        }
        assert_eq!(limit.current(), 3, "about a round of successes adds one");
        for _ in 0..100 {
            limit.acquire().await.succeeded();
        }
        assert_eq!(limit.current(), 4);
    }

    #[tokio::test]
    async fn never_below_one_and_never_more_in_flight_than_the_limit() {
        let limit = AdaptiveLimit::new(3);
        for _ in 0..10 {
            limit.acquire().await.throttled();
        }
        assert_eq!(limit.current(), 1);
        let first = limit.acquire().await;
        let second = tokio::time::timeout(std::time::Duration::from_millis(20), limit.acquire());
        assert!(second.await.is_err(), "a second call waits at limit 1");
        drop(first);
        let third = tokio::time::timeout(std::time::Duration::from_secs(5), limit.acquire());
        assert!(third.await.is_ok(), "a freed place is given to a waiter");
    }

    async fn futures_join(limit: &AdaptiveLimit, n: usize) -> Vec<Permit<'_>> {
        let mut permits = Vec::new();
        for _ in 0..n {
            permits.push(limit.acquire().await);
        }
        permits
    }
}
