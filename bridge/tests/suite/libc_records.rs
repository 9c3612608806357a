//! Records libc reads on the program's behalf into buffers of its own
//! (the utmp API, `fgetpwent`): the probe after the call makes them
//! objects, so a carved call on one maps its bytes to the input, explores
//! them, and lifts what it finds.

use crate::util::*;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

/// A `struct utmpx` of glibc on x86-64 (384 bytes): type, pid, line, user.
fn utmp_record(kind: i16, pid: i32, line: &[u8], user: &[u8]) -> Vec<u8> {
    let mut r = vec![0u8; 384];
    r[0..2].copy_from_slice(&kind.to_le_bytes());
    r[4..8].copy_from_slice(&pid.to_le_bytes());
    r[8..8 + line.len()].copy_from_slice(line);
    r[44..44 + user.len()].copy_from_slice(user);
    r
}

/// Carves `check` of `prog` on `input`, explores it; the alarms kept in
/// check, each checked to abort the program when run on its input.
fn alarms_in_check(prog: &Path, input: &[u8], dir: &Path) -> usize {
    let p = prog.to_str().unwrap();
    let units = dir.join("units");
    let u = units.to_str().unwrap();
    let carve = bridge(&["carve", "-o", u, "--functions", "^check$", "--", p, "@@"], input);
    assert!(carve.status.success(), "{}", stderr(&carve));
    let list = stdout(&bridge(&["units", u], b""));
    assert!(list.lines().any(|l| l.starts_with("check.") && l.contains(" (")), "no parameter of check: {list}");
    let o = dir.join("out");
    let sum = bridge_json(&["explore", u, "--tries", "60", "--json", "-o", o.to_str().unwrap(), "--", p, "@@"], b"");
    let alarms = sum["alarms"].as_array().unwrap();
    let n = alarms.iter().filter(|a| a["function"] == "check").count();
    assert!(n >= 1, "no alarm in check: {sum}");
    for a in std::fs::read_dir(o.join("alarms")).unwrap() {
        let a = a.unwrap().path();
        let st = std::process::Command::new(prog).arg(a.join("input")).output().unwrap().status;
        assert_eq!(st.signal(), Some(6), "{} does not reproduce", a.display());
    }
    n
}

#[test]
fn a_utmp_record_getutxent_reads_is_mapped_explored_and_lifted() {
    let dir = tempfile::tempdir().unwrap();
    let prog = fixture("utmp", dir.path());
    let mut input = utmp_record(2, 0, b"~", b"reboot");
    input.extend(utmp_record(7, 1000, b"pts/1", b"alice"));
    input.extend(utmp_record(7, 2000, b"pts/2", b"bob"));
    // The seed itself does not fail.
    let seed = dir.path().join("seed");
    std::fs::write(&seed, &input).unwrap();
    let run = std::process::Command::new(&prog).arg(&seed).output().unwrap();
    assert!(run.status.success() && stdout(&run).contains("2 users"), "{}", stdout(&run));
    alarms_in_check(&prog, &input, dir.path());
}

#[test]
fn a_passwd_record_fgetpwent_parses_is_mapped_explored_and_lifted() {
    let dir = tempfile::tempdir().unwrap();
    let prog = fixture("passwd", dir.path());
    let input = b"root:x:0:0:root:/root:/bin/bash\nann:x:1000:1000:Ann:/home/ann:/bin/csh\n";
    alarms_in_check(&prog, input, dir.path());
}
