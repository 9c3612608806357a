//! The live status of a campaign: one line redrawn on a terminal, plain
//! lines every few seconds otherwise.

use super::state::Stats;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

pub struct Status {
    tty: bool,
    last: Instant,
    last_execs: u64,
    every: Duration,
}

impl Status {
    pub fn new() -> Status {
        let tty = std::io::stderr().is_terminal();
        let every = if tty { Duration::from_millis(500) } else { Duration::from_secs(10) };
        Status { tty, last: Instant::now(), last_execs: 0, every }
    }

    /// Shows the status if it is time to.
    pub fn tick(&mut self, s: &Stats, left: f64) {
        if self.last.elapsed() >= self.every {
            self.show(s, left);
        }
    }

    pub fn show(&mut self, s: &Stats, left: f64) {
        let dt = self.last.elapsed().as_secs_f64().max(1e-3);
        let rate = (s.execs.saturating_sub(self.last_execs)) as f64 / dt;
        self.last = Instant::now();
        self.last_execs = s.execs;
        let line = format!(
            "{:>7.0} execs/s | {} execs | edges {} | branches {:.1} % | corpus {} | crashes {} ({} unique) | hangs {}{} | {} left",
            rate,
            s.execs,
            s.edges,
            s.branch_pct(),
            s.queue,
            s.crashes,
            s.unique_crashes,
            s.unique_hangs,
            if s.units_analysed > 0 {
                format!(
                    " | units {} | lifts: {} alarms, {} coverage, {} false",
                    s.units_analysed, s.unique_true_alarms, s.coverage_lifts, s.false_alarms
                )
            } else {
                String::new()
            },
            clock(left)
        );
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(err, "\r\x1b[2K{line}");
        } else {
            let _ = writeln!(err, "{line}");
        }
        let _ = err.flush();
    }

    /// Ends the redrawn line.
    pub fn finish(&self) {
        if self.tty {
            eprintln!();
        }
    }
}

fn clock(secs: f64) -> String {
    let s = secs.max(0.0) as u64;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}
