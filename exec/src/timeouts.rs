//! Calibrated time limits, as AFL++ sets them: runs are limited to a few
//! times what the seeds take, far below the target's full limit, and a run
//! that exceeds the short limit is run again under the full one before it
//! counts as a timeout (a loaded machine, or an input that is merely slow).

use crate::{Error, ForkServer, Outcome};
use std::time::{Duration, Instant};

/// The shortest calibrated limit: below it, the noise of a shared machine
/// (a fork can take milliseconds) would make every run a recheck.
pub const FLOOR: Duration = Duration::from_millis(20);
/// Runs of each input calibration makes, and the most inputs it takes.
const RUNS_EACH: usize = 3;
const MOST_INPUTS: usize = 64;

/// What the limits cost a run of the target so far.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timeouts {
    /// The calibrated limit, when there is one.
    pub calibrated: Option<Duration>,
    /// Runs that exceeded the calibrated limit and were run again under
    /// the full one; of those, the ones that then finished.
    pub rechecked: u64,
    pub slow: u64,
    /// Wall time spent in runs that were stopped by a limit.
    pub lost: Duration,
}

/// The limit that `samples` (the run times of inputs that finished) call
/// for: five times their mean, at least twice the slowest and at least
/// [`FLOOR`], rounded up to 10 ms, at most `full`.
pub fn calibrated_limit(samples: &[Duration], full: Duration) -> Duration {
    if samples.is_empty() {
        return full;
    }
    let mean = samples.iter().sum::<Duration>() / samples.len() as u32;
    let slowest = samples.iter().max().copied().unwrap_or_default();
    let want = (mean * 5).max(slowest * 2).max(FLOOR);
    let step = 10_000u128;
    let micros = want.as_micros().div_ceil(step) * step;
    Duration::from_micros(micros as u64).min(full)
}

impl ForkServer {
    /// Runs each of `inputs` (at most 64 of them) a few times and limits
    /// later runs to what they take (see [`calibrated_limit`]); every run
    /// that exceeds it is then re-run under the full limit. Inputs that
    /// time out do not count. Returns the limit.
    pub fn calibrate(&mut self, inputs: &[&[u8]]) -> Result<Duration, Error> {
        let full = self.target().timeout;
        self.set_run_timeout(full);
        let mut samples = Vec::new();
        for input in inputs.iter().take(MOST_INPUTS) {
            for _ in 0..RUNS_EACH {
                let started = Instant::now();
                if self.run_limited(input)? == Outcome::Timeout {
                    break;
                }
                samples.push(started.elapsed());
            }
        }
        let limit = calibrated_limit(&samples, full);
        self.set_run_timeout(limit);
        self.timeouts.calibrated = (limit < full).then_some(limit);
        Ok(limit)
    }

    /// What limits have cost so far.
    pub fn timeouts(&self) -> Timeouts {
        self.timeouts
    }

    /// Runs `input` once; under a calibrated limit, a timeout is re-run
    /// under the full limit and only a second timeout counts.
    pub fn run(&mut self, input: &[u8]) -> Result<Outcome, Error> {
        match self.run_limited(input)? {
            Outcome::Timeout => self.recheck(input),
            outcome => Ok(outcome),
        }
    }

    /// Runs `input` under the full limit when runs are calibrated (after
    /// it exceeded the short one); the outcome of the last run otherwise.
    pub fn recheck(&mut self, input: &[u8]) -> Result<Outcome, Error> {
        let Some(short) = self.timeouts.calibrated else {
            return Ok(Outcome::Timeout);
        };
        self.timeouts.rechecked += 1;
        self.set_run_timeout(self.target().timeout);
        let again = self.run_limited(input);
        self.set_run_timeout(short);
        let again = again?;
        if again != Outcome::Timeout {
            self.timeouts.slow += 1;
        }
        Ok(again)
    }

    /// One run under the current limit, calibrated or not, with no
    /// recheck; the time of a run it stops counts as lost.
    pub fn run_limited(&mut self, input: &[u8]) -> Result<Outcome, Error> {
        let started = Instant::now();
        let outcome = self.run_restarting(input)?;
        self.last_run = started.elapsed();
        if outcome == Outcome::Timeout {
            self.timeouts.lost += self.last_run;
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_limit_follows_the_seeds_within_floor_and_full() {
        let full = ms(1000);
        assert_eq!(calibrated_limit(&[], full), full, "nothing measured: the full limit");
        assert_eq!(calibrated_limit(&[Duration::from_micros(300); 9], full), FLOOR);
        // Mean 7 ms: five times, rounded up to 10 ms.
        assert_eq!(calibrated_limit(&[ms(6), ms(8)], full), ms(40));
        // One slow seed: twice it.
        assert_eq!(calibrated_limit(&[ms(1), ms(1), ms(1), ms(1), ms(60)], full), ms(120));
        assert_eq!(calibrated_limit(&[ms(400)], full), full);
    }
}
