//! The trail records a campaign writes beside its tests
//! (`provenance::Record`): what made each test, from which queue entries,
//! and its labels. A record is made before its test's name is known; the
//! writer fills in `test`.

use provenance::{Labels, Lift, Maker, Record, RECORD_VERSION};

/// A seed: no parent, its bytes its own.
pub(super) fn seed(id: u64, len: usize) -> Record {
    record(Vec::new(), Maker::Seed, Vec::new(), None, Labels::own(id, len))
}

/// A test a system generator made: `op` as the generator names it
/// (`nd:bf+num`: pattern and mutators).
pub(super) fn system(generator: &str, parent: u64, donors: &[u64], op: &str, labels: Labels) -> Record {
    let ops = op.split([':', '+']).filter(|o| !o.is_empty()).map(str::to_string).collect();
    let parents = std::iter::once(parent).chain(donors.iter().copied()).collect();
    record(parents, Maker::System(generator.to_string()), ops, None, labels)
}

/// A lift of a unit's values into entry `entry`.
pub(super) fn lift(entry: u64, op: &str, lift: Lift, labels: Labels) -> Record {
    let ops = op.split('+').map(str::to_string).collect();
    record(vec![entry], Maker::Lifter, ops, Some(lift), labels)
}

fn record(parents: Vec<u64>, maker: Maker, ops: Vec<String>, lift: Option<Lift>, labels: Labels) -> Record {
    Record { version: RECORD_VERSION, test: String::new(), parents, maker, ops, lift, labels: Some(labels) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_system_record_lists_its_parents_and_operators() {
        let r = system("radamsa-like", 7, &[3, 9], "nd:bf+num", Labels::own(7, 2));
        assert_eq!(r.parents, [7, 3, 9]);
        assert_eq!(r.ops, ["nd", "bf", "num"]);
        assert_eq!(r.maker, Maker::System("radamsa-like".into()));
    }
}
