//! The solver thread's share of a core it shares with system runs (a
//! campaign on one core): before each query, the thread waits while the
//! CPU time it has used is more than its share of the time since it
//! started. The share is set from outside ([`Pace`]); at 1 it never waits.
//! Whoever owns the thread may also halt it ([`Pace::halt`]): it stops
//! waiting, and the query under way gives up ([`super::Halt`]).

use super::{Answer, Halt, Query, Solver, Stats, Stop};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The most CPU time the thread may be behind its share and still catch
/// up (a share lowered late is not paid for by a long stop).
const MOST_OWED_S: f64 = 2.0;
/// The longest single wait, so a share raised meanwhile takes effect.
const LONGEST_NAP: Duration = Duration::from_millis(200);

/// The share, set by whoever runs the campaign, and the CPU time the
/// solver thread has used, for it to read.
#[derive(Debug)]
pub struct Pace {
    share_permille: AtomicU32,
    cpu_us: AtomicU64,
    waited_us: AtomicU64,
    halt: Halt,
}

impl Default for Pace {
    fn default() -> Pace {
        Pace {
            share_permille: AtomicU32::new(1000),
            cpu_us: AtomicU64::new(0),
            waited_us: AtomicU64::new(0),
            halt: Arc::new(AtomicBool::new(false)),
        }
    }
}

impl Pace {
    /// The share of a core the thread may use, from 0.05 to 1 (no wait).
    pub fn set_share(&self, share: f64) {
        let permille = (share.clamp(0.05, 1.0) * 1000.0).round() as u32;
        self.share_permille.store(permille, Ordering::Relaxed);
    }

    pub fn share(&self) -> f64 {
        f64::from(self.share_permille.load(Ordering::Relaxed)) / 1000.0
    }

    /// CPU seconds the solver thread has used so far.
    pub fn cpu_seconds(&self) -> f64 {
        self.cpu_us.load(Ordering::Relaxed) as f64 / 1e6
    }

    /// Seconds the solver thread has waited to keep to its share.
    pub fn waited_seconds(&self) -> f64 {
        self.waited_us.load(Ordering::Relaxed) as f64 / 1e6
    }

    /// Stops the thread's waits and queries for good (its owner is done
    /// with it).
    pub fn halt(&self) {
        self.halt.store(true, Ordering::Relaxed);
    }

    /// The flag [`Pace::halt`] sets, for the solvers of the thread.
    pub fn halt_flag(&self) -> Halt {
        self.halt.clone()
    }
}

/// `inner`, asked at the pace's share.
pub struct Paced<S> {
    inner: S,
    pace: Arc<Pace>,
    started: Instant,
    /// Seconds of the thread's life not counted (debt forgiven).
    forgiven: f64,
}

impl<S: Solver> Paced<S> {
    pub fn new(inner: S, pace: Arc<Pace>) -> Paced<S> {
        Paced { inner, pace, started: Instant::now(), forgiven: 0.0 }
    }

    fn wait(&mut self) {
        loop {
            let cpu = self.note_cpu();
            let (nap, forgiven) = nap(cpu, self.started.elapsed().as_secs_f64(), self.pace.share(), self.forgiven);
            self.forgiven = forgiven;
            let Some(nap) = nap else { return };
            if self.pace.halt.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(nap);
            self.pace.waited_us.fetch_add(nap.as_micros() as u64, Ordering::Relaxed);
        }
    }

    fn note_cpu(&self) -> f64 {
        let cpu = thread_cpu_seconds();
        self.pace.cpu_us.store((cpu * 1e6) as u64, Ordering::Relaxed);
        cpu
    }
}

impl<S: Solver> Solver for Paced<S> {
    fn solve(&mut self, q: &Query<'_>) -> Answer {
        self.wait();
        let a = self.inner.solve(q);
        self.note_cpu();
        a
    }

    fn solve_within(&mut self, q: &Query<'_>, timeout_ms: u32, stop: Stop<'_>) -> Answer {
        self.wait();
        let a = self.inner.solve_within(q, timeout_ms, stop);
        self.note_cpu();
        a
    }

    fn extremes(&mut self, q: &Query<'_>) -> Vec<Vec<(u32, u8)>> {
        self.wait();
        let e = self.inner.extremes(q);
        self.note_cpu();
        e
    }

    fn stats(&self) -> Stats {
        self.inner.stats()
    }
}

/// How long a thread that used `cpu` seconds in `elapsed` should sleep at
/// `share` (`None`: not at all), and the seconds forgiven so far after
/// this call: a thread further ahead than [`MOST_OWED_S`] is forgiven the
/// rest, as if it had started later.
fn nap(cpu: f64, elapsed: f64, share: f64, forgiven: f64) -> (Option<Duration>, f64) {
    if share >= 1.0 {
        return (None, forgiven);
    }
    let mut forgiven = forgiven;
    let mut over = cpu - share * (elapsed + forgiven);
    if over > MOST_OWED_S {
        forgiven += (over - MOST_OWED_S) / share;
        over = MOST_OWED_S;
    }
    if over <= 0.0 {
        return (None, forgiven);
    }
    (Some(Duration::from_secs_f64(over / share).min(LONGEST_NAP)), forgiven)
}

/// CPU time of the calling thread.
fn thread_cpu_seconds() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return 0.0;
    }
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Burns CPU for every query.
    struct Busy(Duration);

    impl Solver for Busy {
        fn solve(&mut self, _q: &Query<'_>) -> Answer {
            let t = Instant::now();
            while t.elapsed() < self.0 {
                std::hint::black_box(0u64);
            }
            Answer::Unknown
        }
        fn stats(&self) -> Stats {
            Stats::default()
        }
    }

    /// CPU seconds, wall seconds and seconds waited of a thread asking
    /// queries for `for_` at `share`.
    fn query_loop(share: f64, for_: Duration) -> (f64, f64, f64) {
        let pace = Arc::new(Pace::default());
        pace.set_share(share);
        let p = pace.clone();
        let wall = std::thread::spawn(move || {
            let mut s = Paced::new(Busy(Duration::from_millis(5)), p);
            let trace = model::symtrace::Trace {
                flags: 0,
                nodes: Vec::new(),
                path: Vec::new(),
                tables: Vec::new(),
                pin_names: Vec::new(),
            };
            let q = Query { id: 0, trace: &trace, conds: Vec::new(), near: &[] };
            let t = Instant::now();
            while t.elapsed() < for_ {
                s.solve(&q);
            }
            t.elapsed().as_secs_f64()
        })
        .join()
        .unwrap();
        (pace.cpu_seconds(), wall, pace.waited_seconds())
    }

    #[test]
    fn a_thread_far_ahead_of_a_lowered_share_owes_at_most_two_seconds() {
        // 30 s of CPU in 40 s, then the share drops to a tenth.
        let (first, forgiven) = nap(30.0, 40.0, 0.1, 0.0);
        assert_eq!(first, Some(LONGEST_NAP));
        assert!((forgiven - 240.0).abs() < 1e-9, "{forgiven}");
        // Having slept its debt of 2 s of CPU (20 s at a tenth), it runs.
        let (later, kept) = nap(30.0, 60.0, 0.1, forgiven);
        assert_eq!((later, kept), (None, forgiven));
        // Within its share it never sleeps; a whole share never does.
        assert_eq!(nap(1.0, 10.0, 0.5, 0.0).0, None);
        assert_eq!(nap(100.0, 1.0, 1.0, 0.0).0, None);
    }

    #[test]
    fn the_thread_keeps_to_its_share_of_the_time() {
        // A busier machine gives the thread less, never more.
        let (cpu, wall, waited) = query_loop(0.25, Duration::from_millis(1200));
        assert!(cpu / wall < 0.4, "a quarter share took {cpu:.2} s of {wall:.2} s");
        assert!(waited > 0.0 || cpu / wall < 0.25, "it never waited, yet took {cpu:.2} s of {wall:.2} s");
        let (_, _, waited) = query_loop(1.0, Duration::from_millis(300));
        assert_eq!(waited, 0.0, "a whole share never waits");
    }
}
