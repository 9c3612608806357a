//! How long a unit's try may run, and when its tries time out too often
//! for more to be worth it.
//!
//! A symbolic try may take several times the concrete time limit
//! (building expressions slows some runs far more), and a hang at that
//! limit costs as much as thousands of tries: sed's `:a;...;ta` loop
//! solved into a script that loops for ever. So a symbolic try's limit is
//! [`SLACK`] times the slowest try of the unit that finished (the run as
//! carved included), at least [`FLOOR`] and at most the full limit; and
//! the unit is given up when the tries timing out in a row have spent
//! [`MAX_SYMBOLIC_HANGS`] full limits, however many they were. Concrete
//! tries keep the full limit and give up after [`MAX_HANGS`] in a row.

use std::time::Duration;

/// Concrete tries timing out in a row after which a unit is given up.
const MAX_HANGS: u32 = 5;
/// Full symbolic limits spent by tries timing out in a row after which a
/// unit is given up.
const MAX_SYMBOLIC_HANGS: u32 = 2;
/// A symbolic try's limit, in times the slowest that finished...
const SLACK: u32 = 10;
/// ... and at least this.
const FLOOR: Duration = Duration::from_millis(200);

pub struct TryLimit {
    full: Duration,
    symbolic: bool,
    /// The slowest try that finished, once one did.
    slowest: Option<Duration>,
    hangs_in_a_row: u32,
    /// The limits of those hangs, added up.
    streak: Duration,
}

impl TryLimit {
    /// Tries limited to `full` (symbolic tries to less, as they go).
    pub fn new(full: Duration, symbolic: bool) -> TryLimit {
        TryLimit { full, symbolic, slowest: None, hangs_in_a_row: 0, streak: Duration::ZERO }
    }

    /// The limit of the next try.
    pub fn next(&self) -> Duration {
        // Until a try finished (the run as carved, first), the full limit.
        match self.slowest {
            Some(slowest) if self.symbolic => (slowest * SLACK).clamp(FLOOR.min(self.full), self.full),
            _ => self.full,
        }
    }

    /// A try run with `limit` took `took`, or timed out.
    pub fn record(&mut self, limit: Duration, took: Duration, timed_out: bool) {
        if timed_out {
            self.hangs_in_a_row += 1;
            self.streak += limit;
        } else {
            self.hangs_in_a_row = 0;
            self.streak = Duration::ZERO;
            self.slowest = self.slowest.max(Some(took));
        }
    }

    /// The last tries all timed out: more would only spend the budget.
    pub fn hopeless(&self) -> bool {
        if self.symbolic {
            self.hangs_in_a_row > 0 && self.streak >= self.full * MAX_SYMBOLIC_HANGS
        } else {
            self.hangs_in_a_row >= MAX_HANGS
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_symbolic_try_gets_ten_times_the_slowest_and_hangs_are_given_up_by_time_spent() {
        let mut l = TryLimit::new(5000 * MS, true);
        assert_eq!(l.next(), 5000 * MS);
        // As carved, 3 ms: the floor.
        l.record(l.next(), 3 * MS, false);
        assert_eq!(l.next(), 200 * MS);
        l.record(l.next(), 40 * MS, false);
        assert_eq!(l.next(), 400 * MS);
        // 24 hangs in a row at 400 ms are under two full limits; the 25th
        // reaches them.
        for _ in 0..24 {
            l.record(l.next(), l.next(), true);
            assert!(!l.hopeless());
        }
        l.record(l.next(), l.next(), true);
        assert!(l.hopeless());
        // A try that finishes ends the streak.
        l.record(l.next(), 1 * MS, false);
        assert!(!l.hopeless());
        // A slow unit gets the full limit, and two hangs give it up.
        let mut slow = TryLimit::new(5000 * MS, true);
        slow.record(slow.next(), 2000 * MS, false);
        assert_eq!(slow.next(), 5000 * MS);
        slow.record(slow.next(), slow.next(), true);
        assert!(!slow.hopeless());
        slow.record(slow.next(), slow.next(), true);
        assert!(slow.hopeless());
    }

    #[test]
    fn a_concrete_try_keeps_the_full_limit_and_five_hangs_give_up() {
        let mut l = TryLimit::new(1000 * MS, false);
        l.record(l.next(), 1 * MS, false);
        assert_eq!(l.next(), 1000 * MS);
        for k in 1..=5 {
            assert!(!l.hopeless());
            l.record(l.next(), l.next(), true);
            assert_eq!(l.hopeless(), k == 5);
        }
    }
}
