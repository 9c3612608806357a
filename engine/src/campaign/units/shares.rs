//! How `main`'s rounds and the pool's (the units of other functions) take
//! turns. Each side counts its seconds and its effective lifts (coverage
//! lifts and true alarms); the side that lifts more per second starts
//! three units in four, the other the rest. Neither is starved: the side
//! that lifts less may still hold the one unit an alarm is in. Turns are
//! counted in units started, not in seconds: many of the pool's units end
//! after one try, and a share of seconds would keep `main` waiting for
//! them. `main` reaches the whole program, so on the coreutils, `sed` and
//! `dc` it is where nearly every effective lift comes from, while a unit
//! of sed's `compile_program` can take hundreds of tries and lift nothing.

/// Seconds of prior each side starts with, as if it had lifted once in
/// that time: a side is not judged on its first round.
const PRIOR_SECONDS: f64 = 5.0;
/// The share of the units started that goes to the side that lifts more
/// per second.
const BETTER: f64 = 0.75;

/// What one side has spent and lifted.
#[derive(Debug, Default, Clone, Copy)]
struct Side {
    seconds: f64,
    effective: u64,
    started: u64,
}

impl Side {
    fn rate(&self) -> f64 {
        (self.effective as f64 + 1.0) / (self.seconds + PRIOR_SECONDS)
    }
}

/// The two sides of the unit rounds.
#[derive(Debug, Default)]
pub struct Shares {
    main: Side,
    pool: Side,
}

impl Shares {
    /// The share of the units started that is due to `main`.
    fn main_share(&self) -> f64 {
        let (m, p) = (self.main.rate(), self.pool.rate());
        if m > p {
            BETTER
        } else if m < p {
            1.0 - BETTER
        } else {
            0.5
        }
    }

    /// Whether the next unit should be `main`'s: the units it started so
    /// far are at most its share (so `main` starts).
    pub fn main_due(&self) -> bool {
        self.main.started as f64 <= self.main_share() * (self.main.started + self.pool.started) as f64
    }

    /// Whether the pool has had less of the rounds' time than the side
    /// that lifts less is due (a quarter), past the first seconds: `main`
    /// then gives way to the pool even while its solver has more for it.
    pub fn pool_behind(&self) -> bool {
        let total = self.main.seconds + self.pool.seconds;
        total > PRIOR_SECONDS && self.pool.seconds < (1.0 - BETTER) * total
    }

    /// A unit of `main` (or of the pool) starts.
    pub fn start(&mut self, main: bool) {
        self.side(main).started += 1;
    }

    /// A round of `main` (or of the pool) took `seconds` and lifted
    /// `effective` values that reproduced.
    pub fn add(&mut self, main: bool, seconds: f64, effective: u64) {
        let side = self.side(main);
        side.seconds += seconds;
        side.effective += effective;
    }

    fn side(&mut self, main: bool) -> &mut Side {
        if main {
            &mut self.main
        } else {
            &mut self.pool
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many of `n` units, one second each, `main` starts, given each
    /// side's lifts per unit.
    fn turns(n: usize, main_lifts: u64, pool_lifts: u64) -> usize {
        let mut s = Shares::default();
        let mut mains = 0;
        for _ in 0..n {
            let main = s.main_due();
            mains += usize::from(main);
            s.start(main);
            s.add(main, 1.0, if main { main_lifts } else { pool_lifts });
        }
        mains
    }

    #[test]
    fn the_side_that_lifts_gets_three_quarters_and_the_other_is_not_starved() {
        assert!(Shares::default().main_due(), "main starts");
        let m = turns(400, 1, 0);
        assert!((290..=310).contains(&m), "main took {m} of 400");
        let p = turns(400, 0, 1);
        assert!((90..=110).contains(&p), "main took {p} of 400");
        let even = turns(400, 0, 0);
        assert!((190..=210).contains(&even), "main took {even} of 400");
    }

    #[test]
    fn the_pool_is_behind_when_main_held_more_than_three_quarters_of_the_time() {
        let mut s = Shares::default();
        s.add(true, 4.0, 0);
        assert!(!s.pool_behind(), "not in the first seconds");
        s.add(true, 20.0, 3);
        assert!(s.pool_behind());
        s.add(false, 7.0, 0);
        assert!(s.pool_behind(), "7 of 31 s");
        s.add(false, 2.0, 0);
        assert!(!s.pool_behind(), "9 of 33 s");
    }
}
