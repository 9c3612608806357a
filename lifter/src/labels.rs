//! Lifting with labels: the bytes a lift writes are labelled as lifted
//! from the unit's parameter, and the rest keep the labels they had.

use crate::lift_spliced;
use model::alarm::describe_site;
use model::unit::{Param, Value};
use provenance::{Labels, Origin, FRESH};

/// [`crate::lift_all`] of `input`, whose bytes have `labels`, and the
/// labels of the result: each value written is `Lifted` from `unit` and
/// its parameter, for the test being made (the bytes a value shares with
/// what it replaced at either end keep their labels).
pub fn lift_labelled(
    input: &[u8],
    labels: &Labels,
    values: &[(&Param, &Value)],
    command_line: bool,
    unit: &str,
) -> (Vec<u8>, Labels) {
    let (out, splices) = lift_spliced(input, values, command_line);
    let mut l = Labels::default();
    let mut from = 0;
    // Where the input's byte `at` is in the output, before the splice at `at`.
    let mut shift: isize = 0;
    for s in splices {
        l.extend(&labels.slice(from, s.at));
        let (old, new) = (&input[s.at..s.end], &out[(s.at as isize + shift) as usize..][..s.len]);
        // What the value left as it was (a solver's value that changed
        // one digit of a whole file) keeps its labels.
        let pre = old.iter().zip(new).take_while(|(a, b)| a == b).count();
        let suf = old[pre..].iter().rev().zip(new[pre..].iter().rev()).take_while(|(a, b)| a == b).count();
        l.extend(&labels.slice(s.at, s.at + pre));
        let param = describe_site(&values[s.value].0.site);
        l.push(s.len - pre - suf, Origin::Lifted { test: FRESH, unit: unit.into(), param: param.into() });
        l.extend(&labels.slice(s.end - suf, s.end));
        shift += s.len as isize - (s.end - s.at) as isize;
        from = s.end;
    }
    l.extend(&labels.slice(from, input.len()));
    (out, l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::fuzzing::Rng;
    use model::unit::{Encoding, Site};

    /// Random inputs and occurrences, values of every kind, with and
    /// without a command line: the labels cover the lifted test, every
    /// byte not lifted names the byte of the input it was, and every
    /// lifted byte is labelled lifted. `LIFT_ROUNDS` sets the number of
    /// lifts (20 000; `scripts/bench/labels.sh` runs 100 000).
    #[test]
    fn lifted_labels_are_exact() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let rounds: usize = std::env::var("LIFT_ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(20_000);
        let mut bytes = 0usize;
        for round in 0..rounds {
            let len = rng.below(40);
            let input: Vec<u8> = (0..len).map(|_| b"ab 1-\n'\""[rng.below(8)]).collect();
            let mut params = Vec::new();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(len + 1);
                let n = rng.below(len + 1 - at).min(6);
                params.push(Param {
                    site: Site::Stream { object: rng.below(3) as u32 },
                    encoding: [
                        Encoding::Raw,
                        Encoding::Decimal,
                        Encoding::Digits { reversed: rng.below(2) == 0, ascii: false },
                        Encoding::Length,
                        Encoding::Binary { width: [1, 2, 4, 8][rng.below(4)], big_endian: rng.below(2) == 0 },
                    ][rng.below(5)],
                    occurrences: vec![(at as u64, n as u64)],
                    original: input[at..at + n].to_vec(),
                    excluded: Vec::new(),
                    room: 0,
                });
            }
            let vals: Vec<Value> = params
                .iter()
                .map(|p| match p.encoding {
                    Encoding::Decimal => Value::Int(rng.word() as i32 as i64),
                    Encoding::Length => Value::Int(rng.below(9) as i64),
                    Encoding::Binary { .. } => Value::Int(rng.word() as i64 >> rng.below(64)),
                    Encoding::Digits { .. } => {
                        Value::Bytes((0..1 + rng.below(5)).map(|_| rng.below(10) as u8).collect())
                    }
                    _ => Value::Bytes((0..rng.below(5)).map(|_| b"xy z'"[rng.below(5)]).collect()),
                })
                .collect();
            let values: Vec<(&Param, &Value)> = params.iter().zip(&vals).collect();
            let command_line = round % 2 == 0;
            let (out, l) = lift_labelled(&input, &Labels::own(4, input.len()), &values, command_line, "f#0");
            assert_eq!(out, crate::lift_all(&input, &values, command_line));
            assert_eq!(l.check(&out, |id| (id == 4).then_some(&input[..])), Ok(()), "{input:?} -> {out:?}");
            bytes += out.len();
        }
        eprintln!("| lifts | {rounds} | bytes checked | {bytes} | mismatches | 0 |");
    }
}
