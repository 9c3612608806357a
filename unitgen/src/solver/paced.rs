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
        let started = self.started;
        self.wait_with(thread_cpu_seconds, || started.elapsed().as_secs_f64(), std::thread::sleep);
    }

    /// [`Paced::wait`] on the clocks given: the thread's CPU seconds, the
    /// seconds since it started, and a sleep.
    fn wait_with(&mut self, mut cpu: impl FnMut() -> f64, elapsed: impl Fn() -> f64, mut sleep: impl FnMut(Duration)) {
        loop {
            let cpu = self.note_cpu(cpu());
            let (nap, forgiven) = nap(cpu, elapsed(), self.pace.share(), self.forgiven);
            self.forgiven = forgiven;
            let Some(nap) = nap else { return };
            if self.pace.halt.load(Ordering::Relaxed) {
                return;
            }
            sleep(nap);
            self.pace.waited_us.fetch_add(nap.as_micros() as u64, Ordering::Relaxed);
        }
    }

    fn note_cpu(&self, cpu: f64) -> f64 {
        self.pace.cpu_us.store((cpu * 1e6) as u64, Ordering::Relaxed);
        cpu
    }
}

impl<S: Solver> Solver for Paced<S> {
    fn solve(&mut self, q: &Query<'_>) -> Answer {
        self.wait();
        let a = self.inner.solve(q);
        self.note_cpu(thread_cpu_seconds());
        a
    }

    fn solve_within(&mut self, q: &Query<'_>, timeout_ms: u32, stop: Stop<'_>) -> Answer {
        self.wait();
        let a = self.inner.solve_within(q, timeout_ms, stop);
        self.note_cpu(thread_cpu_seconds());
        a
    }

    fn extremes(&mut self, q: &Query<'_>) -> Vec<Vec<(u32, u8)>> {
        self.wait();
        let e = self.inner.extremes(q);
        self.note_cpu(thread_cpu_seconds());
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

/// CPU time of the calling thread (zero when it cannot be read).
pub(crate) fn thread_cpu() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// CPU seconds of the calling thread.
fn thread_cpu_seconds() -> f64 {
    thread_cpu().as_secs_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Answers at once (the simulations below count the time a query takes).
    struct Idle;

    impl Solver for Idle {
        fn solve(&mut self, _q: &Query<'_>) -> Answer {
            Answer::Unknown
        }
        fn stats(&self) -> Stats {
            Stats::default()
        }
    }

    /// A thread asking queries of `query_s` CPU seconds each, which take
    /// `slowdown` times as long in wall time (1: alone on its core), at
    /// `share`, until `for_s` seconds have passed, on simulated clocks
    /// (a nap takes a micro-second more than asked, as real sleeps take
    /// longer): its CPU seconds, the seconds that passed, the naps it
    /// took, and the pace.
    fn simulated(share: f64, query_s: f64, slowdown: f64, for_s: f64) -> (f64, f64, usize, Arc<Pace>) {
        let pace = Arc::new(Pace::default());
        pace.set_share(share);
        let mut s = Paced::new(Idle, pace.clone());
        let (cpu, wall, naps) = (Cell::new(0.0), Cell::new(0.0), Cell::new(0));
        while wall.get() < for_s {
            s.wait_with(
                || cpu.get(),
                || wall.get(),
                |d| {
                    assert!(naps.get() < 1_000_000, "naps without end");
                    wall.set(wall.get() + d.as_secs_f64() + 1e-6);
                    naps.set(naps.get() + 1);
                },
            );
            cpu.set(cpu.get() + query_s);
            wall.set(wall.get() + query_s * slowdown);
        }
        (cpu.get(), wall.get(), naps.get(), pace)
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
        // Queries of 5 ms for a minute at a quarter share: before each
        // query the thread is within its share, so it ends at most one
        // query past it, having waited the rest of the time.
        let (cpu, wall, naps, pace) = simulated(0.25, 0.005, 1.0, 60.0);
        let over = cpu - 0.25 * wall;
        assert!((-0.001..=0.005 + 1e-9).contains(&over), "a quarter share took {cpu:.3} s of {wall:.3} s");
        // About 15 ms of naps for each 5 ms query.
        assert!(naps >= 2900, "{naps} naps");
        // Naps are counted in micro-seconds: under two lost per nap
        // (the one it overslept, the one cut off).
        assert!((pace.waited_seconds() - (wall - cpu)).abs() < 0.01, "waited {}", pace.waited_seconds());
        // The CPU time read before the last query.
        assert!((pace.cpu_seconds() - (cpu - 0.005)).abs() < 1e-5, "{}", pace.cpu_seconds());
        // A busier machine gives the thread less, never more: queries
        // taking twice their CPU time, a quarter share is still kept to,
        // and a share of three quarters it cannot reach is never waited for.
        let (cpu, wall, _, _) = simulated(0.25, 0.005, 2.0, 60.0);
        assert!(cpu - 0.25 * wall <= 0.005 + 1e-9, "a quarter share took {cpu:.3} s of {wall:.3} s");
        let (cpu, wall, naps, pace) = simulated(0.75, 0.005, 2.0, 60.0);
        assert_eq!((naps, pace.waited_seconds()), (0, 0.0));
        assert!((cpu * 2.0 - wall).abs() < 1e-6, "{cpu} of {wall}");
        // A whole share never waits.
        let (cpu, wall, naps, pace) = simulated(1.0, 0.005, 1.0, 60.0);
        assert_eq!((naps, pace.waited_seconds()), (0, 0.0));
        assert!((cpu - wall).abs() < 1e-6);
    }

    #[test]
    fn a_whole_share_never_waits_on_the_real_clocks() {
        let pace = Arc::new(Pace::default());
        let p = pace.clone();
        std::thread::spawn(move || {
            let mut s = Paced::new(Idle, p);
            let trace = model::symtrace::Trace {
                flags: 0,
                nodes: Vec::new(),
                path: Vec::new(),
                tables: Vec::new(),
                pin_names: Vec::new(),
            };
            let q = Query { id: 0, trace: &trace, conds: Vec::new(), near: &[] };
            for _ in 0..100 {
                s.solve(&q);
            }
        })
        .join()
        .unwrap();
        assert_eq!(pace.waited_seconds(), 0.0, "a whole share never waits");
    }
}
