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

impl Default for Status {
    fn default() -> Status {
        Status::new()
    }
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
                let pinned = pinned_summary(&s.unit_generator, 1).map(|p| format!(" | {p}")).unwrap_or_default();
                format!(
                    " | units {} | lifts: {} alarms, {} coverage, {} false{pinned}",
                    s.units_analysed, s.unique_true_alarms, s.lifts.coverage_lifts, s.lifts.false_alarms
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

/// What pinned most symbolic values (the symbolic generator's `pinned`
/// counts, in its statistics `stats`), the `n` largest: "pinned by
/// `strtod`: 12 345 times, by `(indirect call)`: 17 times"; `None` when
/// nothing was pinned.
pub fn pinned_summary(stats: &serde_json::Value, n: usize) -> Option<String> {
    let map = stats.get("pinned")?.as_object()?;
    let mut v: Vec<(&str, u64)> = map.iter().filter_map(|(k, c)| Some((k.as_str(), c.as_u64()?))).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v.truncate(n);
    let parts: Vec<String> =
        v.iter().map(|(name, count)| format!("by `{name}`: {} times", thousands(*count))).collect();
    (!parts.is_empty()).then(|| format!("pinned {}", parts.join(", ")))
}

/// Where a campaign's time went: system runs, unit tries, the solver, and
/// runs stopped by a time limit.
pub fn time_spent(s: &Stats) -> String {
    let g = &s.unit_generator;
    let solver_s = g["solver_cpu_s"].as_f64().unwrap_or(0.0);
    let paused = match g["solver_waited_s"].as_f64() {
        Some(w) if w > 0.5 => format!(", paused {w:.0} s to leave the core to system runs"),
        _ => String::new(),
    };
    let limit = match s.timeout_calibrated_ms {
        0 => "runs under the full time limit".to_string(),
        ms => format!(
            "runs limited to {ms} ms, {} re-run under the full limit ({} of them finished), {} not (stopped where a kept hang loops), {} not (nothing new among timeouts: neither hangs nor kept)",
            thousands(s.timeouts_rechecked),
            thousands(s.slow_runs),
            thousands(s.rechecks_spared),
            thousands(s.timeouts_unchecked)
        ),
    };
    let waited = if s.idle_s > 0.0 {
        format!("; {:.0} s waiting for other instances or the solver", s.idle_s)
    } else {
        String::new()
    };
    format!(
        "{} system execs, {} unit tries, {:.0} s in unit rounds, {solver_s:.0} s of solver CPU{paused}; {limit}; {:.1} s lost to timeouts{waited}",
        thousands(s.execs),
        thousands(s.lifts.unit_tries),
        s.unit_seconds,
        s.timeout_lost_s
    )
}

/// `12345` as `12 345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_pins_are_named_first() {
        let stats = serde_json::json!({ "pinned": { "strtod": 12345, "(indirect call)": 17, "qsort": 400 } });
        assert_eq!(
            pinned_summary(&stats, 2).as_deref(),
            Some("pinned by `strtod`: 12 345 times, by `qsort`: 400 times")
        );
        assert_eq!(pinned_summary(&serde_json::json!({ "pinned": {} }), 3), None);
        assert_eq!(pinned_summary(&serde_json::Value::Null, 3), None);
    }
}
