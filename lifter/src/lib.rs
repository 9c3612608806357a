//! Lifter: writes a unit-level value back into the system input at the
//! parameter's mapped offsets, re-runs the whole program, and says what the
//! value is worth at system level: a true alarm (the failure reproduces), a
//! coverage lift (new system-level edges), or a false alarm.

use exec::{Coverage, ForkServer, Newness, Outcome};
use model::unit::{Param, Value};

/// What a lifted value turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// The program fails on the lifted input (crash or hang).
    TrueAlarm,
    /// The lifted input reaches code no system test reached.
    CoverageLift,
    /// The unit failed or found something, the whole program does not.
    FalseAlarm,
}

/// `input` with every occurrence of `param` replaced by `value`'s text
/// (lengths may change: later occurrences are replaced first).
pub fn lift(input: &[u8], param: &Param, value: &Value) -> Vec<u8> {
    let text = value.text();
    let mut out = input.to_vec();
    let mut occ = param.occurrences.clone();
    occ.sort_unstable();
    for &(at, len) in occ.iter().rev() {
        let (at, end) = (at as usize, (at + len) as usize);
        if end <= out.len() {
            out.splice(at..end, text.iter().copied());
        }
    }
    out
}

/// `input` with several parameters replaced at once (their occurrences,
/// from the last to the first; one that overlaps a later one is left).
pub fn lift_all(input: &[u8], values: &[(&Param, &Value)]) -> Vec<u8> {
    let mut subs: Vec<(usize, usize, Vec<u8>)> = values
        .iter()
        .flat_map(|(p, v)| {
            let text = v.text();
            p.occurrences.iter().map(move |&(at, len)| (at as usize, (at + len) as usize, text.clone()))
        })
        .collect();
    subs.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = input.to_vec();
    let mut limit = usize::MAX;
    for (at, end, text) in subs {
        if end <= out.len() && end <= limit {
            out.splice(at..end, text);
            limit = at;
        }
    }
    out
}

/// Runs `lifted` through `system` and classifies it against `cov`, the
/// system-level coverage so far (which it updates).
pub fn check(system: &mut ForkServer, cov: &mut Coverage, lifted: &[u8]) -> Result<(Class, Outcome), exec::Error> {
    let outcome = system.run(lifted)?;
    let newness = cov.add(system.map());
    let class = match outcome {
        Outcome::Crash(_) | Outcome::Timeout => Class::TrueAlarm,
        _ if newness == Newness::NewEdges => Class::CoverageLift,
        _ => Class::FalseAlarm,
    };
    Ok((class, outcome))
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::unit::{Encoding, Site};

    #[test]
    fn every_occurrence_is_replaced_and_lengths_may_change() {
        let p = Param {
            site: Site::Arg { index: 0, size: 4 },
            encoding: Encoding::Decimal,
            occurrences: vec![(4, 2), (10, 2)],
            original: b"12".to_vec(),
        };
        assert_eq!(lift(b"len 12\nn  12\n", &p, &Value::Int(i32::MIN as i64)), b"len -2147483648\nn  -2147483648\n");
        let s = Param {
            site: Site::Stream { object: 0 },
            encoding: Encoding::Raw,
            occurrences: vec![(0, 3)],
            original: b"abc".to_vec(),
        };
        assert_eq!(lift(b"abc!", &s, &Value::Bytes(b"xy\0z".to_vec())), b"xy!", "a string ends at its NUL");
        let n = Param { occurrences: vec![(4, 2)], ..p.clone() };
        let w = Param { occurrences: vec![(7, 3)], ..s.clone() };
        let both = lift_all(b"len 12\nabc!", &[(&n, &Value::Int(7)), (&w, &Value::Bytes(b"q".to_vec()))]);
        assert_eq!(both, b"len 7\nq!", "each at its own occurrences");
    }
}
