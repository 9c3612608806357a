//! Queries that timed out at the chain's limit, asked again with a longer
//! one when the solver thread has nothing else to do (no new trace, no
//! trace in its backlog): a direction whose path z3 needs a few tenths of
//! a second for (a `strtol` model for each of two numbers, and a division
//! that traps) is not lost to the short limit that keeps most traces'
//! solving quick. As KLEE's solver chain keeps fresh work first, a retry
//! never delays a new trace: it is given up as soon as one comes, and
//! kept to run again once the thread is idle.
//!
//! The list is bounded ([`MAX_KEPT`]) and tied to the unit (its
//! generation): a new unit forgets it. What comes out first is the most
//! promising entry: a direction no trace took and no system run covered
//! before one only a few traces took, one whose optimistic query found
//! nothing before one that has an optimistic solution queued already,
//! then the newest.

use super::closest::closest;
use super::context::InContext;
use super::worker::{child, queue, Item, Link, RARE};
use crate::solver::{Answer, Cond, Query, Solver};
use model::symtrace::Trace;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most queries kept for a retry.
pub(super) const MAX_KEPT: usize = 8;
/// A retry's time limit: this many times the chain's own ...
const FACTOR: u32 = 8;
/// ... and at most this (milliseconds).
const MAX_MS: u32 = 2000;

/// The time limit of a retry for a chain whose limit is `timeout_ms`;
/// none when it would not be longer.
pub(super) fn escalated(timeout_ms: u32) -> Option<u32> {
    let ms = timeout_ms.saturating_mul(FACTOR).min(MAX_MS);
    (ms > timeout_ms).then_some(ms)
}

/// How promising a retry is (greater first): its phase (a direction no
/// trace took and no system run covered, 2; covered, 1; few traces took
/// it, 0), and whether nothing was queued for it (its optimistic query
/// failed too).
pub(super) type Rank = (u8, bool);

/// A query to ask again, and the solution it would give.
pub(super) struct Retry {
    pub generation: u64,
    /// The trace's query id and the trace.
    pub id: u64,
    pub trace: Arc<Trace>,
    pub conds: Vec<Cond>,
    /// The item a solution makes, with its parent's input (the solved
    /// bytes go in there).
    pub item: Item,
    /// Queued behind the exact solutions for open directions.
    pub behind: bool,
    pub rank: Rank,
}

impl Retry {
    /// Entries for the same direction (in the same context) replace each
    /// other.
    fn key(&self) -> ((u32, u64), Option<InContext>) {
        (self.item.target, self.item.context)
    }
}

/// What [`Retries::keep`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kept {
    /// Kept, and an entry was dropped for it (replaced or less
    /// promising) when `true`.
    Yes(bool),
    /// Not kept: retries are off, the entry is for another unit, or
    /// every entry kept is more promising.
    No,
}

/// The queries kept for a retry, for the current unit.
#[derive(Default)]
pub(super) struct Retries {
    /// A retry's time limit (milliseconds); 0: retries are off.
    limit_ms: u32,
    /// Entries and their order of arrival.
    kept: Vec<(u64, Retry)>,
    arrivals: u64,
}

impl Retries {
    pub fn set_limit(&mut self, ms: Option<u32>) {
        self.limit_ms = ms.unwrap_or(0);
    }

    pub fn limit_ms(&self) -> Option<u32> {
        (self.limit_ms > 0).then_some(self.limit_ms)
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Forgets every entry (a new unit starts).
    pub fn clear(&mut self) {
        self.kept.clear();
    }

    /// Keeps `r` when it is for the unit of generation `current`: in place
    /// of an entry for the same direction, else of the least promising
    /// (oldest first) when the list is full and `r` is more promising.
    pub fn keep(&mut self, r: Retry, current: u64) -> Kept {
        if self.limit_ms == 0 || r.generation != current {
            return Kept::No;
        }
        self.kept.retain(|(_, k)| k.generation == current);
        self.arrivals += 1;
        let arrival = self.arrivals;
        if let Some(at) = self.kept.iter().position(|(_, k)| k.key() == r.key()) {
            self.kept[at] = (arrival, r);
            return Kept::Yes(true);
        }
        if self.kept.len() < MAX_KEPT {
            self.kept.push((arrival, r));
            return Kept::Yes(false);
        }
        let Some((worst, _)) = self.kept.iter().enumerate().min_by_key(|(_, (a, k))| (k.rank, *a)) else {
            return Kept::No;
        };
        if self.kept[worst].1.rank > r.rank {
            return Kept::No;
        }
        self.kept[worst] = (arrival, r);
        Kept::Yes(true)
    }

    /// The most promising entry (the newest of those), for the unit of
    /// generation `current`; those for another unit are dropped.
    pub fn take(&mut self, current: u64) -> Option<Retry> {
        self.kept.retain(|(_, k)| k.generation == current);
        let (best, _) = self.kept.iter().enumerate().max_by_key(|(_, (a, k))| (k.rank, *a))?;
        Some(self.kept.swap_remove(best).1)
    }

    /// Puts back an entry given up for fresh work: it comes out first
    /// again.
    pub fn put_back(&mut self, r: Retry, current: u64) {
        if r.generation != current {
            return;
        }
        self.arrivals += 1;
        let arrival = self.arrivals;
        if self.kept.len() >= MAX_KEPT {
            // Kept meanwhile: it stays the more promising.
            if let Some((worst, _)) = self.kept.iter().enumerate().min_by_key(|(_, (a, k))| (k.rank, *a)) {
                self.kept.swap_remove(worst);
            }
        }
        self.kept.push((arrival, r));
    }
}

/// Asks the most promising query kept again with the longer limit, given
/// up when fresh work comes (a trace sent, the unit changed, the explorer
/// dropped) and then kept again. A solution is queued as the first
/// query's would have been.
pub(super) fn run(solver: &mut dyn Solver, link: &Link) {
    let (r, limit) = {
        let mut s = link.lock();
        let Some(limit) = s.retries.limit_ms() else { return };
        if s.closed || s.pending > 0 {
            return;
        }
        let current = s.generation;
        let Some(r) = s.retries.take(current) else { return };
        // Its direction was taken since (by an input solved for it, or
        // often enough, or in its context): nothing left to find.
        let target = r.item.target;
        let moot = match r.item.context {
            Some(c) => s.seen_in_context.contains(&c),
            None if r.item.again => s.seen.get(&target).copied().unwrap_or(0) >= RARE,
            None => s.reached.contains(&target),
        };
        if moot {
            s.stats.retries_moot += 1;
            return;
        }
        (r, limit)
    };
    let generation = r.generation;
    let stop = || {
        let s = link.lock();
        s.closed || s.generation != generation || s.pending > 0
    };
    let near = r.item.input.clone();
    let q = Query { id: r.id, trace: &r.trace, conds: r.conds.clone(), near: &near };
    let started = Instant::now();
    let answer = solver.solve_within(&q, limit, &stop);
    let full = started.elapsed() >= Duration::from_millis(u64::from(limit));
    let mut s = link.lock();
    let target = r.item.target;
    match answer {
        Answer::Unknown if !full && (s.closed || s.generation != generation || s.pending > 0) => {
            s.stats.retries_given_up += 1;
            let current = s.generation;
            s.retries.put_back(r, current);
        }
        Answer::Unknown => {
            s.stats.retries += 1;
            s.stats.retries_timed_out += 1;
        }
        Answer::Unsat => {
            s.stats.retries += 1;
            s.stats.retries_unsat += 1;
            s.unsolvable.unsat(target);
        }
        Answer::Sat(assign) => {
            s.stats.retries += 1;
            s.stats.retries_sat += 1;
            s.unsolvable.sat(target);
            drop(s);
            let mut item = r.item;
            item.input = child(&item.input, closest(&r.trace, &q.conds, &item.input, assign));
            queue(link, generation, item, r.behind, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::worker::tests::job;
    use super::super::worker::{spawn_with, Job, Shared};
    use super::*;
    use crate::solver::{self, Query};

    fn retry(generation: u64, target: (u32, u64), rank: Rank) -> Retry {
        let trace = Trace { flags: 0, nodes: Vec::new(), path: Vec::new(), tables: Vec::new(), pin_names: Vec::new() };
        let item = Item {
            input: Vec::new(),
            bound: 0,
            target,
            slot: None,
            expected: None,
            again: false,
            context: None,
            ends: false,
        };
        Retry { generation, id: 1, trace: Arc::new(trace), conds: Vec::new(), item, behind: false, rank }
    }

    fn on() -> Retries {
        let mut r = Retries::default();
        r.set_limit(escalated(250));
        r
    }

    fn targets(r: &mut Retries, generation: u64) -> Vec<u32> {
        std::iter::from_fn(|| r.take(generation)).map(|r| r.item.target.0).collect()
    }

    #[test]
    fn the_limit_is_longer_and_capped_or_there_is_none() {
        assert_eq!(escalated(250), Some(2000));
        assert_eq!(escalated(100), Some(800));
        assert_eq!(escalated(2000), None);
        assert_eq!(escalated(u32::MAX), None);
        let mut r = Retries::default();
        assert_eq!(r.keep(retry(1, (1, 0), (2, true)), 1), Kept::No, "off");
    }

    #[test]
    fn the_most_promising_come_first_and_the_newest_of_equals() {
        let mut r = on();
        for (site, rank) in [(1, (0, true)), (2, (2, false)), (3, (2, true)), (4, (2, true)), (5, (1, true))] {
            assert_eq!(r.keep(retry(1, (site, 0), rank), 1), Kept::Yes(false));
        }
        assert_eq!(targets(&mut r, 1), [4, 3, 2, 5, 1]);
    }

    #[test]
    fn the_list_is_bounded_dropping_the_least_promising_and_oldest() {
        let mut r = on();
        for site in 0..MAX_KEPT as u32 {
            let rank = if site < 2 { (0, true) } else { (2, true) };
            assert_eq!(r.keep(retry(1, (site, 0), rank), 1), Kept::Yes(false));
        }
        // Full: a less promising one is not kept; a more promising one
        // takes the oldest of the least promising's place.
        assert_eq!(r.keep(retry(1, (100, 0), (0, false)), 1), Kept::No);
        assert_eq!(r.keep(retry(1, (101, 0), (1, true)), 1), Kept::Yes(true));
        assert_eq!(r.kept.len(), MAX_KEPT);
        let order = targets(&mut r, 1);
        assert_eq!(order.len(), MAX_KEPT);
        assert_eq!(order[MAX_KEPT - 2..], [101, 1], "{order:?}");
        // The same direction again replaces its entry.
        assert_eq!(r.keep(retry(1, (7, 0), (0, true)), 1), Kept::Yes(false));
        assert_eq!(r.keep(retry(1, (7, 0), (2, true)), 1), Kept::Yes(true));
        assert_eq!(r.kept.len(), 1);
        assert_eq!(r.take(1).map(|k| k.rank), Some((2, true)));
    }

    #[test]
    fn entries_belong_to_their_unit() {
        let mut r = on();
        assert_eq!(r.keep(retry(2, (1, 0), (2, true)), 3), Kept::No, "an older unit's");
        assert_eq!(r.keep(retry(3, (1, 0), (2, true)), 3), Kept::Yes(false));
        assert_eq!(r.keep(retry(3, (2, 0), (0, true)), 3), Kept::Yes(false));
        // A new unit: what was kept is not given.
        assert!(r.take(4).is_none());
        assert!(r.is_empty());
        // One given up comes out first again; not for another unit.
        r.keep(retry(4, (1, 0), (2, true)), 4);
        r.keep(retry(4, (2, 0), (2, true)), 4);
        let first = r.take(4).expect("kept");
        assert_eq!(first.item.target.0, 2);
        r.put_back(first, 4);
        assert_eq!(targets(&mut r, 4), [2, 1]);
        r.put_back(retry(4, (9, 0), (2, true)), 5);
        assert!(r.is_empty());
    }

    /// Times out at the chain's limit; has a solution (byte 0 is 'a')
    /// within `enough` ms, else runs out its time unless told to stop.
    struct Slow {
        enough: u32,
    }

    impl Solver for Slow {
        fn solve(&mut self, _: &Query<'_>) -> Answer {
            Answer::Unknown
        }

        fn solve_within(&mut self, _: &Query<'_>, ms: u32, stop: solver::Stop<'_>) -> Answer {
            if ms >= self.enough {
                return Answer::Sat(vec![(0, b'a')]);
            }
            let started = Instant::now();
            while started.elapsed() < Duration::from_millis(u64::from(ms)) {
                if stop() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Answer::Unknown
        }

        fn stats(&self) -> solver::Stats {
            solver::Stats::default()
        }
    }

    /// A solver thread on `Slow` with retries limited to `retry_ms`, the
    /// unit's generation 1, and a sender of jobs (counted as `observe`
    /// counts them).
    fn slow_thread(enough: u32, retry_ms: Option<u32>) -> (Arc<Link>, impl Fn(Job)) {
        let link = Arc::new(Link::default());
        link.lock().generation = 1;
        let (tx, rx) = std::sync::mpsc::channel();
        spawn_with(link.clone(), rx, retry_ms, move || Slow { enough });
        let l = link.clone();
        let send = move |job: Job| {
            l.lock().pending += 1;
            tx.send(job).expect("the solver thread runs");
        };
        (link, send)
    }

    /// Waits (up to 5 s) until `done` holds of the shared state.
    fn until(link: &Link, done: impl Fn(&Shared) -> bool) -> bool {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(5) {
            if done(&link.lock()) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        false
    }

    #[test]
    fn a_query_that_timed_out_is_answered_by_a_retry_when_the_thread_is_idle() {
        let (link, send) = slow_thread(1000, Some(2000));
        send(job(1));
        assert!(until(&link, |s| !s.queue.is_empty()), "solved by the retry");
        let s = link.lock();
        assert_eq!(s.queue[0].input, b"a");
        assert_eq!(s.queue[0].target, (3, 1));
        let st = &s.stats;
        assert_eq!((st.retries_kept, st.retries, st.retries_sat, st.inputs_queued), (1, 1, 1, 1), "{st:?}");
        assert!(s.retries.is_empty());
        drop(s);
        link.lock().closed = true;
        // Without retries, nothing comes.
        let (link, send) = slow_thread(1000, None);
        send(job(1));
        assert!(until(&link, |s| s.pending == 0));
        std::thread::sleep(Duration::from_millis(50));
        let s = link.lock();
        assert!(s.queue.is_empty() && s.later.is_empty());
        assert_eq!((s.stats.retries_kept, s.stats.retries), (0, 0));
        drop(s);
        link.lock().closed = true;
    }

    #[test]
    fn a_retry_gives_way_to_a_new_trace_and_runs_again_after_it() {
        // A retry that would run its full 2 s.
        let (link, send) = slow_thread(u32::MAX, Some(2000));
        send(job(1));
        assert!(until(&link, |s| s.pending == 0 && s.stats.retries_kept == 1));
        std::thread::sleep(Duration::from_millis(50));
        let started = Instant::now();
        let mut second = job(2);
        second.id = 2;
        send(second);
        assert!(until(&link, |s| s.pending == 0));
        assert!(started.elapsed() < Duration::from_millis(1000), "waited {:?}", started.elapsed());
        let st = link.lock().stats.clone();
        assert!(st.retries_given_up >= 1, "{st:?}");
        // The same direction from the new trace took the old one's place,
        // and runs once the thread is idle again.
        assert!(until(&link, |s| s.stats.retries_timed_out == 1));
        assert!(link.lock().retries.is_empty());
        link.lock().closed = true;
    }
}
