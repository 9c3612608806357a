//! Traces the tools cannot use, written by a real target in place of the
//! runtime's: a campaign counts and reports each as a unit error, and goes
//! on exploring its other units.

use crate::util::*;
use model::op::Op;
use model::symtrace::{PathEntry, Trace};
use model::trace::{Node, PATH_BRANCH};

/// A small well-formed trace: input byte 0, widened, compared.
fn good() -> Trace {
    let node = |op, width, a, b, val| Node { op, width, a, b, c: 0, val };
    Trace {
        flags: 0,
        nodes: vec![
            Node::default(),
            node(Op::Input, 8, 0, 0, 0),
            node(Op::ZExt, 32, 1, 0, 0),
            node(Op::Const, 32, 0, 0, 98),
            node(Op::Eq, 1, 2, 3, 0),
        ],
        path: vec![PathEntry { kind: PATH_BRANCH, site: 1, node: 4, taken: 0, cases: vec![], slots: vec![] }],
        tables: vec![],
        pin_names: vec![],
    }
}

#[test]
fn corrupted_and_ill_typed_traces_are_unit_errors_and_the_campaign_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let prog = fixture("spoiler", dir.path());
    let seeds = dir.path().join("seeds");
    std::fs::create_dir(&seeds).unwrap();
    std::fs::write(seeds.join("tags"), "ok two words\nbad? three more words\nnone\n").unwrap();
    assert!(Trace::decode(&good().encode()).is_ok());
    // One byte of a good trace flipped (its checksum no longer holds).
    let mut corrupted = good().encode();
    let last = corrupted.len() - 3;
    corrupted[last] ^= 0x40;
    // Well-formed, checksum and all, but an 8-bit input byte under a
    // 32-bit comparison: a solver given it would fail on the widths.
    let mut ill = good();
    ill.nodes[4].a = 1;
    let ill_typed = ill.encode();
    for (name, bytes) in [("corrupted", corrupted), ("ill-typed", ill_typed)] {
        let with = dir.path().join(name);
        std::fs::write(&with, &bytes).unwrap();
        assert!(Trace::decode(&bytes).is_err(), "{name}");
        let out = dir.path().join(format!("out-{name}"));
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_bridge"))
            .args(["run", "--unit", "symbolic", "--time", "12s", "--seed", "1"])
            .arg("-i")
            .arg(&seeds)
            .arg("-o")
            .arg(&out)
            .args(["--", prog.to_str().unwrap(), "@@"])
            .env("SPOIL_WITH", &with)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(o.status.success(), "{name}: {err}");
        // Reported, with what was wrong.
        assert!(err.contains("unit round skipped") && err.contains("bad trace from the target"), "{name}: {err}");
        let j: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("campaign.json")).unwrap()).unwrap();
        let s = &j["stats"];
        assert!(s["unit_errors"].as_u64().unwrap() >= 1, "{name}: {s}");
        // The other units were still explored: `check` ran tries of its
        // own, their traces whole.
        let csv = std::fs::read_to_string(out.join("units.csv")).unwrap();
        let tries_of_check: u64 = csv
            .lines()
            .skip(1)
            .map(|r| r.split(',').collect::<Vec<_>>())
            .filter(|r| r[1] == "check")
            .map(|r| r[4].parse::<u64>().unwrap())
            .sum();
        assert!(tries_of_check > 0, "{name}: {csv}");
        // And lifted its abort to the whole program.
        assert!(s["unique_true_alarms"].as_u64().unwrap() >= 1, "{name}: {s}");
        assert!(s["execs"].as_u64().unwrap() > 100, "{name}: {s}");
    }
}
