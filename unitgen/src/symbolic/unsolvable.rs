//! Branch directions whose path had no solution, asked for again less and
//! less often.
//!
//! A parser decides a byte once and branches on it again later: sed's
//! compiler switches on the command letter and its executor switches on
//! the letter stored. Under any path through the first switch the second
//! one's other cases have no solution, and each new trace would ask for
//! all of them again. Another path may still reach such a direction
//! (another context, another unit), so it is never dropped for good:
//! after `u` unsolvable queries, the next `2^(u-1) - 1` meetings skip it.
//!
//! What is known is kept per unit function: a helper's check that has no
//! solution under `main`'s paths (its argument clamped by the caller) may
//! well have one in the helper's own unit, where the argument is free
//! (`examples/clamp`'s `tally`), and `main`'s many unsolvable queries
//! would otherwise have its unit skip it.

use std::collections::HashMap;

/// Branch directions (site, direction) and how their queries went, in the
/// units of each function.
#[derive(Default)]
pub(super) struct Unsolvable {
    /// Per (function, direction): unsolvable queries in a row, and
    /// meetings skipped since the last.
    met: HashMap<(u64, (u32, u64)), (u32, u64)>,
    /// The function of the unit explored now (a hash of its name).
    scope: u64,
}

impl Unsolvable {
    /// A unit of `function` is explored from now on.
    pub fn enter(&mut self, function: &str) {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        function.hash(&mut h);
        self.scope = h.finish();
    }

    /// Whether to ask for `dir` at this meeting (a skip is counted).
    pub fn ask(&mut self, dir: (u32, u64)) -> bool {
        let Some((unsat, skipped)) = self.met.get_mut(&(self.scope, dir)) else { return true };
        let skips = (1u64 << (*unsat - 1).min(40)) - 1;
        if *skipped >= skips {
            true
        } else {
            *skipped += 1;
            false
        }
    }

    /// The query for `dir` under its path had no solution.
    pub fn unsat(&mut self, dir: (u32, u64)) {
        let e = self.met.entry((self.scope, dir)).or_default();
        e.0 += 1;
        e.1 = 0;
    }

    /// The query for `dir` under its path had one.
    pub fn sat(&mut self, dir: (u32, u64)) {
        self.met.remove(&(self.scope, dir));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unsolvable_direction_is_asked_for_at_doubling_gaps_until_it_solves() {
        let mut u = Unsolvable::default();
        let d = (7, 1);
        let mut asked = Vec::new();
        for meeting in 0..40 {
            if u.ask(d) {
                asked.push(meeting);
                u.unsat(d);
            }
        }
        assert_eq!(asked, [0, 1, 3, 7, 15, 31]);
        // Another direction is not affected; a solution resets.
        assert!(u.ask((7, 0)));
        u.sat(d);
        assert!(u.ask(d) && u.ask(d));
    }

    #[test]
    fn what_is_unsolvable_in_one_function_s_units_is_asked_in_another_s() {
        let mut u = Unsolvable::default();
        let d = (7, 1);
        u.enter("main");
        for _ in 0..5 {
            u.unsat(d);
        }
        assert!(!u.ask(d));
        u.enter("tally");
        assert!(u.ask(d));
        u.unsat(d);
        assert!(u.ask(d));
        u.unsat(d);
        assert!(!u.ask(d));
        // Back in main's units, what was known there holds.
        u.enter("main");
        assert!(!u.ask(d));
    }
}
