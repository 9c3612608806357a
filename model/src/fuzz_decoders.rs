//! Every decoder of a file the tools read (a unit, a snapshot and an
//! outcome payload, a symbolic trace, an alarm record), fed mutations of a
//! valid file: each input is an error or a value, never a panic. Payload
//! mutations are wrapped in a record with a good checksum, so that they
//! reach the payload decoders rather than stop at the checksum.
//!
//! `DECODER_FUZZ_INPUTS` inputs per decoder (default 20 000, a fraction of a second);
//! `scripts/bench/decoders.sh` runs a million each. (A panic's message is
//! printed as usual; the test fails on any.)

use crate::alarm::Alarm;
use crate::fuzzing::{fuzz, inputs};
use crate::op::Op;
use crate::snapshot::*;
use crate::symtrace::Trace;
use crate::trace::*;
use crate::unit::*;

fn record(kind: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    push_record(&mut out, kind, payload);
    out
}

/// A trace payload with every kind of node and path entry, a table and a
/// pin name.
fn trace_payload() -> Vec<u8> {
    let n = |op: Op, width: u8, a: u32, b: u32, c: u32, val: u64| Node { op, width, a, b, c, val };
    let nodes = [
        n(Op::Input, 8, 0, 0, 0, 0),
        n(Op::Input, 8, 0, 0, 0, 1),
        n(Op::ZExt, 32, 1, 0, 0, 0),
        n(Op::Const, 32, 0, 0, 0, 48),
        n(Op::Sub, 32, 3, 4, 0, 0),
        n(Op::Ult, 1, 5, 4, 0, 0),
        n(Op::Concat, 16, 1, 2, 0, 0),
        n(Op::Extract, 8, 7, 0, 0, 4),
        n(Op::Ite, 32, 6, 5, 3, 0),
        n(Op::Table, 8, 2, 0, 0, 0),
        n(Op::SDiv, 32, 9, 4, 0, 0),
    ];
    let mut p = Vec::new();
    p.u32(0);
    p.u32(nodes.len() as u32);
    for x in &nodes {
        x.encode(&mut p);
    }
    p.u32(3);
    // A branch, a switch with two cases, a pin.
    p.u8(PATH_BRANCH);
    p.u32(7);
    p.u32(6);
    p.u64(1);
    p.u32(2);
    p.u32(100);
    p.u32(101);
    p.u8(PATH_SWITCH);
    p.u32(8);
    p.u32(9);
    p.u64(48);
    p.u32(2);
    p.u64(48);
    p.u64(49);
    p.u32(1);
    p.u32(102);
    p.u8(PATH_PIN);
    p.u32(1);
    p.u32(11);
    p.u64(3);
    p.u32(1);
    for k in 0..TABLE_LEN as u64 {
        p.u64(k * 3);
    }
    p.u32(1);
    p.u32(6);
    p.put(b"strtod");
    p
}

fn alarm() -> Vec<u8> {
    let a = Alarm {
        version: crate::alarm::ALARM_VERSION,
        found_by: "run".into(),
        function: "main".into(),
        call: 0,
        parameter: 0,
        site: "the input file".into(),
        original_value: "a".into(),
        new_value: "b\u{0}".into(),
        parameters_changed: 1,
        generator_op: "solved".into(),
        outcome: "crash (signal 11, SIGSEGV)".into(),
        system_test: Some(3),
        unit_file: None,
        found_after_s: Some(1.5),
        key: Some("signal 11 at 0x10".into()),
    };
    serde_json::to_vec(&a).unwrap()
}

#[test]
fn decoders_return_errors_on_mutated_files_and_never_panic() {
    let inputs = inputs();
    let u = crate::unit::tests::sample();
    let unit_file = u.encode();
    let snapshot = u.snapshot.encode_payload();
    let outcome = u.outcome.as_ref().unwrap().encode_payload();
    let trace = trace_payload();
    let sym_in = crate::symtrace::encode_sym_in(&[SymInput { object: 0, offset: 0, len: 4, first: 0 }]);
    let same = |b: Vec<u8>| b;
    // The unit file's records, each of whose payloads is mutated in turn
    // and the file put back together with good checksums.
    let mut records = Vec::new();
    let mut rest = &unit_file[..];
    while !rest.is_empty() {
        let (kind, payload, more) = next_record(rest).unwrap();
        records.push((kind, payload.to_vec()));
        rest = more;
    }
    let with = |k: usize| {
        let records = records.clone();
        move |b: Vec<u8>| {
            let mut out = Vec::new();
            for (j, (kind, p)) in records.iter().enumerate() {
                push_record(&mut out, *kind, if j == k { &b } else { p });
            }
            out
        }
    };
    println!("| decoder | inputs | accepted | rejected | panics |");
    println!("|---|---|---|---|---|");
    let panics = [
        fuzz("unit file", &unit_file, &same, &|b| Unit::decode(b).is_ok(), inputs),
        fuzz("unit file, record 1 (snapshot)", &records[0].1, &with(0), &|b| Unit::decode(b).is_ok(), inputs),
        fuzz("unit file, record 2 (outcome)", &records[1].1, &with(1), &|b| Unit::decode(b).is_ok(), inputs),
        fuzz("unit file, record 3 (meta)", &records[2].1, &with(2), &|b| Unit::decode(b).is_ok(), inputs),
        fuzz("snapshot payload", &snapshot, &same, &|b| Snapshot::decode_payload(b).is_ok(), inputs),
        fuzz("outcome payload", &outcome, &same, &|b| CallOutcome::decode_payload(b).is_ok(), inputs),
        fuzz("trace (good checksum)", &trace, &|b| record(KIND_TRACE, &b), &|b| Trace::decode(b).is_ok(), inputs),
        fuzz("trace file", &record(KIND_TRACE, &trace), &same, &|b| Trace::decode(b).is_ok(), inputs),
        fuzz(
            "symbolic-input file",
            &sym_in,
            &same,
            &|b| {
                // As the runtime reads it (`replay.rs`, `parse_sym_in`).
                next_record(b).ok().filter(|(kind, _, _)| *kind == KIND_SYM_IN).is_some_and(|(_, p, _)| {
                    let mut r = Reader::new(p);
                    let n = r.u32().unwrap_or(0);
                    (0..n).map(|_| SymInput::decode(&mut r).ok()).collect::<Option<Vec<_>>>().is_some()
                })
            },
            inputs,
        ),
        fuzz("alarm record (JSON)", &alarm(), &same, &|b| Alarm::from_json(b).is_ok(), inputs),
    ];
    assert_eq!(panics.iter().sum::<usize>(), 0, "decoders panicked: {panics:?}");
}
