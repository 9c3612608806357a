use super::*;
use model::op::Op;
use model::symtrace::PathEntry;
use model::trace::Node;
use model::unit::Encoding;

fn node(op: Op, width: u8, a: u32, b: u32, val: u64) -> Node {
    Node { op, width, a, b, c: 0, val }
}

/// A unit that switches on its string parameter's first byte: cases
/// '\n', 'q' and 'x'. The seed takes 'x'.
fn switch_trace() -> Trace {
    let nodes = vec![node(Op::Const, 8, 0, 0, 0), node(Op::Input, 8, 0, 0, 0)];
    let path = vec![PathEntry {
        kind: PATH_SWITCH,
        site: 7,
        node: 1,
        taken: u64::from(b'x'),
        cases: vec![10, 113, 120],
        slots: Vec::new(),
    }];
    Trace { flags: 0, nodes, path, tables: Vec::new(), pin_names: Vec::new() }
}

/// The switch's default taken ('k'), then a branch on a class table
/// of the same byte (`isupper`: bit 8 of its entry) not taken.
fn default_then_table_trace() -> Trace {
    let upper: Vec<u64> = (0..256u64).map(|c| if (65..91).contains(&c) { 0x100 } else { 0 }).collect();
    let nodes = vec![
        node(Op::Const, 8, 0, 0, 0),
        node(Op::Input, 8, 0, 0, 0),
        node(Op::Table, 16, 1, 0, 0),
        node(Op::Const, 16, 0, 0, 0x100),
        node(Op::And, 16, 2, 3, 0),
        node(Op::Const, 16, 0, 0, 0),
        node(Op::Ne, 1, 4, 5, 0),
    ];
    let path = vec![
        PathEntry {
            kind: PATH_SWITCH,
            site: 7,
            node: 1,
            taken: u64::from(b'k'),
            cases: vec![10, 113, 120],
            slots: Vec::new(),
        },
        PathEntry { kind: PATH_BRANCH, site: 8, node: 6, taken: 0, cases: Vec::new(), slots: Vec::new() },
    ];
    Trace { flags: 0, nodes, path, tables: vec![upper], pin_names: Vec::new() }
}

/// The two-byte string parameter the switch traces read, carved as
/// "xy"; a lift cannot carry `excluded`.
fn xy(excluded: &[u8]) -> Param {
    Param {
        site: Site::Bytes { object: 1, offset: 0, len: 2, nul: false },
        encoding: Encoding::Raw,
        occurrences: vec![(0, 2)],
        original: b"xy".to_vec(),
        excluded: excluded.to_vec(),
        room: 0,
    }
}

/// The values solved, in the order they come, from a trace of the
/// switch of [`switch_trace`] that took `taken`.
fn solved_from(g: &mut Symbolic, taken: u8) -> Vec<u8> {
    let mut t = switch_trace();
    t.path[0].taken = u64::from(taken);
    drain(g, t).iter().map(|v| v[0]).collect()
}

/// Every value solved from one trace.
fn drain(g: &mut Symbolic, t: Trace) -> Vec<Vec<u8>> {
    let p = xy(&[]);
    g.start("f", std::slice::from_ref(&p));
    let seed = g.next(std::slice::from_ref(&p), 1);
    g.observe(&seed[0], Some(t));
    let mut found = Vec::new();
    while g.pending() != Pending::Nothing {
        g.wait(std::time::Duration::from_millis(50));
        for c in g.next(std::slice::from_ref(&p), 1) {
            found.extend(c.values.iter().map(|(_, v)| v.text()));
        }
    }
    found
}

/// Its solver thread ends with it (a thread left in z3 as the process
/// exits runs on while z3's globals are torn down).
#[test]
fn dropping_it_ends_its_solver_thread() {
    let mut g = Symbolic::new(2000, None);
    assert!(!drain(&mut g, switch_trace()).is_empty());
    let link = g.link.clone();
    let started = std::time::Instant::now();
    drop(g);
    assert_eq!(Arc::strong_count(&link), 1, "the thread still holds its link");
    assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
}

#[test]
fn a_direction_few_traces_took_is_solved_again_after_the_new_ones() {
    let mut g = Symbolic::new(2000, None);
    for _ in 1..worker::RARE {
        assert!(!solved_from(&mut g, b'q').contains(&b'q'));
    }
    // 'q' was taken by RARE - 1 traces: solved again, after the
    // directions no trace took ('\n'; the default).
    let found = solved_from(&mut g, b'x');
    assert_eq!(found.len(), 3, "{found:?}");
    assert_eq!(found[2], b'q', "{found:?}");
    // Once RARE traces took it, it is not.
    solved_from(&mut g, b'q');
    let found = solved_from(&mut g, b'x');
    assert!(!found.contains(&b'q'), "{found:?}");
}

#[test]
fn directions_to_edges_system_runs_cover_are_solved_for_after_the_others() {
    let mut g = Symbolic::new(2000, None);
    // The '\n' case's edge (slot 100) is covered; 'q' (101), the
    // seed's 'x' (102) and the default (103) are not.
    let mut covered = vec![0u8; 256];
    covered[100] = 1;
    g.system_coverage(&covered);
    let mut t = switch_trace();
    t.path[0].slots = vec![100, 101, 102, 103];
    let found = drain(&mut g, t);
    assert_eq!(found.len(), 3, "{found:?}");
    assert_eq!(found[2][0], b'\n', "{found:?}");
    let stats = g.explore_stats();
    assert_eq!((stats.asked_open, stats.asked_covered), (2, 1), "{stats:?}");
}

#[test]
fn a_direction_its_path_rules_out_is_asked_for_at_doubling_gaps() {
    // The byte is switched on twice, as a command letter by a parser
    // and again by an executor: under the path through the first
    // switch, the second's other cases have no solution.
    let mut g = Symbolic::new(2000, None);
    let trace = || {
        let mut t = switch_trace();
        let again = PathEntry { site: 8, ..t.path[0].clone() };
        t.path.push(again);
        t
    };
    for _ in 0..6 {
        drain(&mut g, trace());
    }
    // Each trace asks for the first switch's three other directions;
    // the second's are asked for at traces 1, 2 and 4 only.
    let stats = g.explore_stats();
    assert_eq!((stats.asked_open, stats.skipped_unsolvable), (6 * 3 + 3 * 3, 3 * 3), "{stats:?}");
}

/// A loop on the parameter's bytes: it goes on at byte 0 (not NUL)
/// and stops at byte 1 when that is 'y' (`go_on`: it did not).
fn loop_trace(go_on: bool) -> Trace {
    let nodes = vec![
        node(Op::Const, 8, 0, 0, 0),
        node(Op::Input, 8, 0, 0, 0),
        node(Op::Input, 8, 0, 0, 1),
        node(Op::Const, 8, 0, 0, 0),
        node(Op::Ne, 1, 1, 3, 0),
        node(Op::Const, 8, 0, 0, u64::from(b'y')),
        node(Op::Ne, 1, 2, 5, 0),
    ];
    let branch =
        |node, taken| PathEntry { kind: PATH_BRANCH, site: 9, node, taken, cases: Vec::new(), slots: Vec::new() };
    Trace {
        flags: 0,
        nodes,
        path: vec![branch(4, 1), branch(6, u64::from(go_on))],
        tables: Vec::new(),
        pin_names: Vec::new(),
    }
}

/// Waits until the solver thread is done with the traces it was given.
fn settle(g: &Symbolic) {
    while g.link.lock().pending > 0 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Every value still to come.
fn rest(g: &mut Symbolic, p: &Param) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    while g.pending() != Pending::Nothing {
        g.wait(std::time::Duration::from_millis(50));
        for c in g.next(std::slice::from_ref(p), 1) {
            found.extend(c.values.iter().map(|(_, v)| v.text()));
        }
    }
    found
}

#[test]
fn a_solution_is_tried_though_a_try_off_its_path_took_its_direction() {
    let p = xy(&[]);
    let mut g = Symbolic::new(2000, None);
    g.start("f", std::slice::from_ref(&p));
    let seed = g.next(std::slice::from_ref(&p), 1);
    g.observe(&seed[0], Some(switch_trace()));
    settle(&g);
    // The first solution's run takes another case than it was solved
    // for (say a byte its trace had concrete sent it elsewhere).
    let first = g.next(std::slice::from_ref(&p), 1);
    let solved_for = first[0].values[0].1.text()[0];
    let other = if solved_for == b'q' { b'\n' } else { b'q' };
    let mut t = switch_trace();
    t.path[0].taken = u64::from(other);
    g.observe(&first[0], Some(t));
    // The solution for that case is still tried: no input solved for
    // it took it.
    let found = rest(&mut g, &p);
    assert!(found.iter().any(|v| v[0] == other), "{found:?}");
}

#[test]
fn a_try_that_left_its_path_early_is_brought_back_to_it_and_on_to_its_target() {
    let p = xy(&[]);
    let mut g = Symbolic::new(2000, None);
    g.start("f", std::slice::from_ref(&p));
    let seed = g.next(std::slice::from_ref(&p), 1);
    // A checksum over both bytes whose sum the trace had concrete for
    // byte 1 (a vectorised loop): byte 0 plus 'y' is 0xf1, taken; then
    // a branch on byte 1 being 'b', not taken.
    let plus = |a, k: u8| vec![node(Op::Const, 8, 0, 0, u64::from(k)), node(Op::Add, 8, 1, a, 0)];
    let mut nodes = vec![node(Op::Const, 8, 0, 0, 0), node(Op::Input, 8, 0, 0, 0), node(Op::Input, 8, 0, 0, 1)];
    nodes.extend(plus(3, b'y'));
    nodes.extend([
        node(Op::Const, 8, 0, 0, 0xf1),
        node(Op::Eq, 1, 4, 5, 0),
        node(Op::Const, 8, 0, 0, u64::from(b'b')),
        node(Op::Eq, 1, 2, 7, 0),
    ]);
    let branch =
        |site, node, taken| PathEntry { kind: PATH_BRANCH, site, node, taken, cases: Vec::new(), slots: Vec::new() };
    let parent = Trace {
        flags: 0,
        nodes: nodes.clone(),
        path: vec![branch(5, 6, 1), branch(6, 8, 0)],
        tables: Vec::new(),
        pin_names: Vec::new(),
    };
    g.observe(&seed[0], Some(parent));
    settle(&g);
    let solved = g.next(std::slice::from_ref(&p), 4);
    let child = solved.iter().find(|c| c.values[0].1.text() == b"xb").expect("solved for 'b'");
    // Its run: with byte 1 'b', the checksum fails; the trace has byte
    // 1's part concrete again, now 'b'.
    nodes[3] = node(Op::Const, 8, 0, 0, u64::from(b'b'));
    let t = Trace { flags: 0, nodes, path: vec![branch(5, 6, 0)], tables: Vec::new(), pin_names: Vec::new() };
    g.observe(child, Some(t));
    let found = rest(&mut g, &p);
    // Byte 0 mended the checksum, byte 1 kept.
    assert!(found.contains(&vec![0xf1 - b'b', b'b']), "{found:?}");
    assert_eq!(g.explore_stats().repairs_asked, 1);
}

#[test]
fn a_loop_that_goes_on_where_no_trace_went_on_is_solved_for() {
    let mut g = Symbolic::new(2000, None);
    for _ in 0..worker::RARE {
        drain(&mut g, loop_trace(false));
    }
    // Both directions of the loop's branch are common now; going on
    // at its second meeting is not (a script read one byte further).
    let found = drain(&mut g, loop_trace(false));
    assert!(found.iter().any(|v| v.len() == 2 && v[1] != b'y'), "{found:?}");
    // Once a trace went on there, it is not solved for again.
    drain(&mut g, loop_trace(true));
    let found = drain(&mut g, loop_trace(false));
    assert!(!found.iter().any(|v| v.len() == 2 && v[1] != b'y'), "{found:?}");
}

fn explore(excluded: &[u8]) -> Vec<Vec<u8>> {
    explore_trace(excluded, switch_trace())
}

fn explore_trace(excluded: &[u8], trace: Trace) -> Vec<Vec<u8>> {
    explore_with_stats(excluded, trace).0
}

fn explore_with_stats(excluded: &[u8], trace: Trace) -> (Vec<Vec<u8>>, ExploreStats) {
    let p = xy(excluded);
    let mut g = Symbolic::new(2000, None);
    g.start("f", std::slice::from_ref(&p));
    let seed = g.next(std::slice::from_ref(&p), 4);
    assert_eq!(seed.len(), 1);
    assert_eq!(g.pending(), Pending::Nothing);
    g.observe(&seed[0], Some(trace));
    let mut found = Vec::new();
    while g.pending() != Pending::Nothing {
        g.wait(std::time::Duration::from_millis(50));
        for c in g.next(std::slice::from_ref(&p), 4) {
            found.extend(c.values.iter().map(|(_, v)| v.text()));
        }
    }
    found.sort();
    (found, g.explore_stats())
}

#[test]
fn a_case_the_path_rules_out_is_solved_for_alone_and_queued_behind() {
    // The byte was tested for 'x' before the switch: under that path
    // no other case has a solution; alone, each has.
    let mut t = switch_trace();
    t.nodes.push(node(Op::Const, 8, 0, 0, u64::from(b'x')));
    t.nodes.push(node(Op::Eq, 1, 1, 2, 0));
    t.path.insert(0, PathEntry { kind: PATH_BRANCH, site: 5, node: 3, taken: 1, cases: Vec::new(), slots: Vec::new() });
    let (found, stats) = explore_with_stats(&[], t);
    assert!(found.iter().any(|v| v[0] == b'q') && found.iter().any(|v| v[0] == b'\n'), "{found:?}");
    assert!(stats.optimistic >= 2, "{stats:?}");
}

#[test]
fn an_entry_the_traces_own_input_does_not_meet_is_left_out_of_its_queries() {
    // The trace says byte 0 was 'q' before the switch, but its input
    // has 'x' there (an expression left for a byte overwritten since):
    // with it, no other case would have a solution on the path.
    let mut t = switch_trace();
    t.nodes.push(node(Op::Const, 8, 0, 0, u64::from(b'q')));
    t.nodes.push(node(Op::Eq, 1, 1, 2, 0));
    t.path.insert(0, PathEntry { kind: PATH_BRANCH, site: 5, node: 3, taken: 1, cases: Vec::new(), slots: Vec::new() });
    let (found, stats) = explore_with_stats(&[], t);
    assert!(found.iter().any(|v| v[0] == b'q') && found.iter().any(|v| v[0] == b'\n'), "{found:?}");
    assert_eq!((stats.entries_stale, stats.optimistic), (1, 0), "{stats:?}");
}

#[test]
fn every_case_of_a_switch_is_solved_on_the_solver_thread() {
    let found = explore(&[]);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found.iter().any(|v| v[0] == b'q') && found.iter().any(|v| v[0] == b'\n'), "{found:?}");
}

#[test]
fn a_value_past_a_switch_default_is_free_but_for_the_cases() {
    let found = explore_trace(&[], default_then_table_trace());
    // The cases but 'x' (the seed's own byte, already tried), and a
    // capital: the table's branch, solvable only if the default holds
    // the byte to none of the cases rather than to 'k'.
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found.iter().any(|v| v[0].is_ascii_uppercase()), "{found:?}");
}

#[test]
fn a_string_with_room_is_symbolic_past_its_nul_and_starts_as_carved() {
    let p = Param {
        site: Site::Bytes { object: 2, offset: 0, len: 2, nul: true },
        encoding: Encoding::Raw,
        occurrences: vec![(0, 2)],
        original: b"-d".to_vec(),
        excluded: Vec::new(),
        room: 3,
    };
    let mut g = Symbolic::new(2000, None);
    g.start("f", std::slice::from_ref(&p));
    let inputs = g.symbolic_inputs().unwrap();
    assert_eq!((inputs.len(), inputs[0].object, inputs[0].len), (1, 2, 5), "{inputs:?}");
    // The seed's value gives the object its room, and lifts as carved.
    let seed = g.next(std::slice::from_ref(&p), 1);
    assert_eq!(seed[0].values, vec![(0, Value::Bytes(b"-d\0\0\0".to_vec()))]);
    assert_eq!(seed[0].values[0].1.text(), b"-d");
}

#[test]
fn a_new_word_is_tried_as_a_dash_right_after_the_seed() {
    let p = Param {
        site: Site::NewWord { argv: 0, word: 4, slot: 1 },
        encoding: Encoding::Raw,
        occurrences: vec![(3, 0)],
        original: Vec::new(),
        excluded: Vec::new(),
        room: 6,
    };
    let mut g = Symbolic::new(2000, None);
    g.start("f", std::slice::from_ref(&p));
    let inputs = g.symbolic_inputs().unwrap();
    assert_eq!((inputs[0].object, inputs[0].len), (4, 6), "{inputs:?}");
    let first = g.next(std::slice::from_ref(&p), 4);
    let values: Vec<_> = first.iter().map(|c| (c.op, c.values.clone())).collect();
    assert_eq!(
        values,
        vec![
            ("seed", vec![(0, Value::Bytes(vec![0; 6]))]),
            ("new word", vec![(0, Value::Bytes(b"-\0\0\0\0\0".to_vec()))])
        ]
    );
    assert_eq!(p.text(&first[1].values[0].1), b" -");
}

#[test]
fn bytes_a_lift_cannot_carry_are_never_solved_for() {
    let found = explore(b"\n");
    assert_eq!(found.len(), 2, "the '\\n' case is left: {found:?}");
    assert!(found.iter().all(|v| !v.contains(&b'\n')), "{found:?}");
}

#[test]
fn a_range_of_bytes_a_lift_cannot_carry_is_never_solved_for() {
    // 'q' and 'x' are in the range; the seed's own 'x' stays as it was.
    let range: Vec<u8> = (0x70..=0xff).collect();
    let found = explore(&range);
    assert!(found.iter().any(|v| v.contains(&b'\n')), "the '\\n' case is solved: {found:?}");
    assert!(found.iter().all(|v| !v.contains(&b'q')), "{found:?}");
}

#[test]
fn a_binary_field_starts_as_its_bytes_read_and_its_argument_stays_within_it() {
    // A 4-byte argument, 9 in the input as `00 09` (a 16-bit big-endian
    // field).
    let p = Param {
        site: Site::Arg { index: 1, size: 4 },
        encoding: Encoding::Binary { width: 2, big_endian: true },
        occurrences: vec![(5, 2)],
        original: vec![0x00, 0x09],
        excluded: Vec::new(),
        room: 0,
    };
    assert_eq!(solved_for_48_and_past_two_bytes(&p), [Value::Int(48)], "no value past the field's two bytes");
    // A length (of 9 bytes) likewise.
    let length = Param { encoding: Encoding::Length, occurrences: vec![(5, 9)], original: b"9".to_vec(), ..p };
    assert_eq!(solved_for_48_and_past_two_bytes(&length), [Value::Int(48)], "no length past two bytes");
}

/// What a 4-byte argument of 9 is solved to when its trace branches on
/// `len == 48` and on `len >= 0x10000`.
fn solved_for_48_and_past_two_bytes(p: &Param) -> Vec<Value> {
    let mut nodes = vec![node(Op::Const, 8, 0, 0, 0)];
    nodes.extend((0..4).map(|k| node(Op::Input, 8, 0, 0, k)));
    nodes.push(node(Op::Concat, 16, 2, 1, 0));
    nodes.push(node(Op::Concat, 24, 3, 5, 0));
    nodes.push(node(Op::Concat, 32, 4, 6, 0));
    nodes.push(node(Op::Const, 32, 0, 0, 48));
    nodes.push(node(Op::Eq, 1, 7, 8, 0));
    nodes.push(node(Op::Const, 32, 0, 0, 0x10000));
    nodes.push(node(Op::Uge, 1, 7, 10, 0));
    let branch =
        |site, node| PathEntry { kind: PATH_BRANCH, site, node, taken: 0, cases: Vec::new(), slots: Vec::new() };
    let path = vec![branch(5, 9), branch(6, 11)];
    let t = Trace { flags: 0, nodes, path, tables: Vec::new(), pin_names: Vec::new() };
    let mut g = Symbolic::new(2000, None);
    g.start("f", std::slice::from_ref(p));
    let seed = g.next(std::slice::from_ref(p), 1);
    assert_eq!(g.base, [9, 0, 0, 0], "the argument as carved");
    g.observe(&seed[0], Some(t));
    let mut found = Vec::new();
    while g.pending() != Pending::Nothing {
        g.wait(std::time::Duration::from_millis(50));
        found.extend(g.next(std::slice::from_ref(p), 4).into_iter().flat_map(|c| c.values).map(|(_, v)| v));
    }
    found
}
