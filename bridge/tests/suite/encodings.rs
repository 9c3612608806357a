//! Values the program decodes on their way to a carved call, mapped and
//! lifted through the encoding of their place.

use crate::util::*;
use std::os::unix::process::ExitStatusExt;

/// A form value that the program decodes and quotes into an SQL literal
/// (a quote doubled) before the "database" unquotes it: the literal maps
/// to its inside, percent-encoded in the input. A solved literal lifts as
/// its inside, percent-encoded; a solved value that is no literal is not
/// liftable and never runs.
#[test]
fn an_sql_literal_is_solved_and_lifted_as_its_inside_in_the_inputs_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let prog = fixture("quoted", dir.path());
    let (p, units) = (prog.to_str().unwrap(), dir.path().join("units"));
    let carve =
        bridge(&["carve", "-o", units.to_str().unwrap(), "--functions", "^dequote$", "--", p, "@@"], b"name=ab+d");
    assert!(carve.status.success(), "{}", stderr(&carve));
    let listing = stdout(&bridge(&["units", units.to_str().unwrap()], b""));
    assert!(listing.lines().any(|l| l.starts_with("dequote.0.unit") && l.ends_with("1 (quoted)")), "{listing}");
    let out = dir.path().join("out");
    let args =
        ["explore", units.to_str().unwrap(), "--tries", "40", "--json", "-o", out.to_str().unwrap(), "--", p, "@@"];
    let sum = bridge_json(&args, b"");
    let alarm = sum["alarms"].as_array().unwrap().iter().find(|a| a["function"] == "dequote");
    let alarm = alarm.unwrap_or_else(|| panic!("no alarm in dequote: {sum}"));
    assert!(alarm["original_value"] == "'ab d'" && alarm["outcome"] == "crash (signal 6, SIGABRT)", "{alarm}");
    assert!(sum["unliftable"].as_u64().unwrap() > 0, "malformed literals are not lifted: {sum}");
    let kept = out.join("alarms").join(&names(&out.join("alarms"))[0]).join("input");
    let input = std::fs::read(&kept).unwrap();
    assert!(input.starts_with(b"name=%27x"), "{}", String::from_utf8_lossy(&input));
    let st = std::process::Command::new(&prog).arg(&kept).output().unwrap().status;
    assert_eq!(st.signal(), Some(6));
}

const SAN: &[&str] = &["-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"];

/// Explores the units of `function` carved from `prog` on `seed`: the
/// summary, and the lifted input of the first alarm (`None` when none).
fn explore_carved(
    prog: &std::path::Path,
    function: &str,
    seed: &[u8],
    d: &std::path::Path,
) -> (serde_json::Value, Option<Vec<u8>>) {
    let p = prog.to_str().unwrap();
    let units = d.join("units");
    let u = units.to_str().unwrap();
    let o = bridge(&["carve", "-o", u, "--functions", &format!("^{function}$"), "--", p, "@@"], seed);
    assert!(o.status.success(), "{}", stderr(&o));
    let listing = stdout(&bridge(&["units", u], b""));
    // The integer as its bytes; the buffer the records were read into is
    // a block of their bytes too.
    assert!(
        listing.lines().any(|l| l.starts_with(&format!("{function}.0.unit")) && l.contains("(binary")),
        "{listing}"
    );
    let out = d.join("out");
    let sum = bridge_json(&["explore", u, "--tries", "20", "--json", "-o", out.to_str().unwrap(), "--", p, "@@"], b"");
    let alarms = out.join("alarms");
    let first = if alarms.exists() { names(&alarms).into_iter().next() } else { None };
    let input = first.map(|a| std::fs::read(alarms.join(a).join("input")).unwrap());
    (sum, input)
}

/// What the program alone reports on `input`.
fn report_on(prog: &std::path::Path, input: &[u8], d: &std::path::Path) -> String {
    let file = d.join("lifted");
    std::fs::write(&file, input).unwrap();
    let o = std::process::Command::new(prog).arg(&file).env("ASAN_OPTIONS", "detect_leaks=0").output().unwrap();
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A record's length, an argument the input holds only as two big-endian
/// bytes, maps to them; the length that overflows the table at unit level
/// (the only one on the path: `set_title` tests it) is solved for and
/// lifted into those two bytes, the input's length unchanged, and the
/// program alone fails on it. Before binary integers were mapped, the
/// length mapped to nothing and nothing was lifted.
#[test]
fn a_binary_length_is_solved_at_unit_level_and_lifted_into_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let prog = carve_compile_with(&repo().join("bridge/tests/fixtures/records.c"), d, SAN);
    // A title of 5 bytes, then a record of 40 that a longer title runs into.
    let seed = [&b"\x01\x00\x05hello\x02\x00\x28"[..], &[b'x'; 40]].concat();
    let (sum, input) = explore_carved(&prog, "set_title", &seed, d);
    let alarm = sum["alarms"].as_array().unwrap().iter().find(|a| a["function"] == "set_title");
    let alarm = alarm.unwrap_or_else(|| panic!("no alarm in set_title: {sum}"));
    assert_eq!((&alarm["original_value"], &alarm["new_value"]), (&"5 (00 05)".into(), &"32 (00 20)".into()), "{alarm}");
    let input = input.unwrap();
    assert_eq!(input, [&b"\x01\x00\x20hello\x02\x00\x28"[..], &[b'x'; 40]].concat());
    let report = report_on(&prog, &input, d);
    assert!(report.contains("AddressSanitizer: global-buffer-overflow"), "{report}");
}

/// examples/tlv's planted overflow: a title of exactly 48 bytes, whose
/// length reaches `set_title` from its record's two big-endian bytes. No
/// branch of `set_title` tests `len`: only the access check at
/// `title[len]` asks for another length, which needs the restored heap
/// block's bounds in the unit run (`runtime/src/restore.rs`), and of the
/// lengths past its end only 48 passes `main`'s `length_ok`, which the
/// unit does not see: the check asks for the access just past the end
/// first (`runtime/src/symptr.rs`).
#[test]
fn tlv_s_title_of_48_bytes_is_solved_in_set_title_and_lifted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let prog = carve_compile_with(&repo().join("examples/tlv/tlv.c"), d, SAN);
    // "inventory": a short title, with more than 48 bytes of records after it.
    let seed = std::fs::read(repo().join("examples/tlv/seeds/store")).unwrap();
    let (sum, input) = explore_carved(&prog, "set_title", &seed, d);
    assert!(sum["true_alarms"].as_u64().unwrap() >= 1, "{sum}");
    let input = input.unwrap();
    assert_eq!((input.len(), &input[4..7]), (seed.len(), &b"\x01\x00\x30"[..]));
    let report = report_on(&prog, &input, d);
    assert!(report.contains("AddressSanitizer: heap-buffer-overflow"), "{report}");
}

/// A string solved shorter than the seed's, in a chunk whose length is a
/// 4-byte big-endian field before it and whose CRC follows it (PNG's
/// layout): the lift writes the shorter name, and the chunk's length and
/// CRC follow it, so the program reads the name and nothing of the CRC
/// after it, and aborts. With the length left as it was, the name read is
/// "root" and 4 bytes of the CRC; with the CRC left, the chunk is skipped:
/// a false alarm either way.
#[test]
fn a_chunk_s_length_and_crc_follow_a_name_solved_shorter() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let prog = fixture("chunks", d);
    let crc = |kind: &[u8], data: &[u8]| crc32fast::hash(&[kind, data].concat()).to_be_bytes();
    let chunk =
        |kind: &[u8], data: &[u8]| [&(data.len() as u32).to_be_bytes()[..], kind, data, &crc(kind, data)].concat();
    let file = |name: &[u8]| {
        [&b"CHUNKS\r\n"[..], &chunk(b"DATA", b"12345"), &chunk(b"NAME", name), &chunk(b"END ", b"")].concat()
    };
    let lifted = greet_s_alarms(&prog, &file(b"operator"), d);
    assert_eq!(std::fs::read(&lifted[0]).unwrap(), file(b"root"));
    let st = std::process::Command::new(&prog).arg(&lifted[0]).status().unwrap();
    assert_eq!(st.signal(), Some(6));
}

/// Carves `greet` of `prog` run on `seed`, explores it (at least one true
/// alarm); the inputs of the alarms kept.
fn greet_s_alarms(prog: &std::path::Path, seed: &[u8], d: &std::path::Path) -> Vec<std::path::PathBuf> {
    let (p, u) = (prog.to_str().unwrap(), d.join("units"));
    let o = bridge(&["carve", "-o", u.to_str().unwrap(), "--functions", "^greet$", "--", p, "@@"], seed);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = d.join("out");
    let sum = bridge_json(
        &["explore", u.to_str().unwrap(), "--tries", "20", "--json", "-o", out.to_str().unwrap(), "--", p, "@@"],
        b"",
    );
    assert!(sum["true_alarms"].as_u64().unwrap() >= 1, "{sum}");
    let alarms = out.join("alarms");
    names(&alarms).iter().map(|a| alarms.join(a).join("input")).collect()
}

/// A name solved shorter than the seed's, in an entry of an archive whose
/// directory of offsets (4 bytes, little-endian) comes first: the lift
/// writes the shorter name, and the offsets of the entries after it move
/// back with it, so the program finds every entry and aborts in `greet`.
/// With the offsets left as they were, they point into the middle of
/// entries, and the program refuses the file: a false alarm.
#[test]
fn a_directory_s_offsets_follow_a_name_solved_shorter() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let prog = fixture("directory", d);
    let pack = |names: &[&[u8]]| {
        let start = 4 + 4 * names.len();
        let (mut offsets, mut entries) = (Vec::new(), Vec::new());
        for name in names {
            offsets.extend(((start + entries.len()) as u32).to_le_bytes());
            entries.extend([&b"E"[..], name, b"\0"].concat());
        }
        [&b"PACK"[..], &offsets, &entries].concat()
    };
    let lifted = greet_s_alarms(&prog, &pack(&[b"alpha", b"operator", b"zed"]), d);
    // Each call of `greet` is a unit: "root" in the first or the second
    // entry moves the entries after it.
    let moved = [pack(&[b"root", b"operator", b"zed"]), pack(&[b"alpha", b"root", b"zed"])];
    let input = lifted.iter().find(|f| moved.contains(&std::fs::read(f).unwrap()));
    let input = input.unwrap_or_else(|| panic!("no alarm moved an entry: {lifted:?}"));
    let st = std::process::Command::new(&prog).arg(input).status().unwrap();
    assert_eq!(st.signal(), Some(6));
}
