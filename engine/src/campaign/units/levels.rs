//! How much of one core the unit level takes when the campaign has only
//! one (`taskset -c 0`, a one-CPU machine): its rounds and its solver
//! thread together, against the system runs. Each level counts the edges
//! it added to the campaign's coverage and the CPU seconds it spent; the
//! unit level's share follows its part of the edges found per second,
//! between [`LEAST`] and [`MOST`], with older counts fading (half-life
//! [`HALF_LIFE_S`]), so the share moves as one level runs dry. With more
//! than one core the solver thread has a core of its own and rounds take
//! at most [`MOST`] of the time, as before.

/// The share's bounds: neither level is starved.
pub const LEAST: f64 = 0.2;
pub const MOST: f64 = 0.5;
/// Seconds after which a level's counts weigh half.
const HALF_LIFE_S: f64 = 60.0;
/// Each level starts as if it had found an edge in this many seconds.
const PRIOR_SECONDS: f64 = 10.0;

#[derive(Debug, Default, Clone, Copy)]
struct Level {
    edges: f64,
    seconds: f64,
}

impl Level {
    fn rate(&self) -> f64 {
        (self.edges + 1.0) / (self.seconds + PRIOR_SECONDS)
    }
}

/// The two levels' recent yields, from the campaign's running totals.
#[derive(Debug)]
pub struct Levels {
    one_core: bool,
    system: Level,
    units: Level,
    /// The totals at the last update: elapsed seconds, unit-level seconds,
    /// system edges, unit edges.
    last: (f64, f64, u64, u64),
}

impl Levels {
    /// Levels of a campaign with `cores` cores to run on.
    pub fn new(cores: usize) -> Levels {
        Levels { one_core: cores <= 1, system: Level::default(), units: Level::default(), last: (0.0, 0.0, 0, 0) }
    }

    /// Whether the unit level and system runs share one core.
    pub fn one_core(&self) -> bool {
        self.one_core
    }

    /// Takes in the campaign's totals: seconds elapsed, seconds the unit
    /// level spent (rounds, and the solver thread's CPU on one core), and
    /// the edges each level added.
    pub fn update(&mut self, elapsed: f64, unit_s: f64, system_edges: u64, unit_edges: u64) {
        let (e0, u0, s0, n0) = self.last;
        let (de, du) = ((elapsed - e0).max(0.0), (unit_s - u0).max(0.0));
        let fade = 0.5f64.powf(de / HALF_LIFE_S);
        for l in [&mut self.system, &mut self.units] {
            l.edges *= fade;
            l.seconds *= fade;
        }
        self.system.seconds += (de - du).max(0.0);
        self.system.edges += system_edges.saturating_sub(s0) as f64;
        self.units.seconds += du;
        self.units.edges += unit_edges.saturating_sub(n0) as f64;
        self.last = (elapsed, unit_s, system_edges, unit_edges);
    }

    /// The share of the time (of the core, on one core) the unit level
    /// may take.
    pub fn unit_share(&self) -> f64 {
        if !self.one_core {
            return MOST;
        }
        let (u, s) = (self.units.rate(), self.system.rate());
        (u / (u + s)).clamp(LEAST, MOST)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_level_that_finds_more_per_second_gets_more_of_one_core() {
        let mut l = Levels::new(1);
        assert_eq!(l.unit_share(), MOST, "even at the start: the prior");
        // 60 s: the system runs find 300 edges in 45 s, the units 5 in 15 s.
        l.update(60.0, 15.0, 300, 5);
        assert_eq!(l.unit_share(), LEAST);
        // The next 300 s, half each: system runs find nothing more, units
        // 40 edges.
        l.update(360.0, 165.0, 300, 45);
        assert_eq!(l.unit_share(), MOST, "the units' recent yield wins");
        // Between the bounds when both find alike per second.
        let mut even = Levels::new(1);
        even.update(100.0, 30.0, 14, 5);
        let s = even.unit_share();
        assert!(s > LEAST && s < MOST, "{s}");
        // With more cores, the bound of rounds as before.
        let mut many = Levels::new(2);
        many.update(60.0, 15.0, 300, 5);
        assert_eq!(many.unit_share(), MOST);
    }
}
