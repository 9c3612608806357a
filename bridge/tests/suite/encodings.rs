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
