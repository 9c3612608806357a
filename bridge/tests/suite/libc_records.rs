//! Records libc reads on the program's behalf into buffers of its own
//! (the utmp API, `fgetpwent`, `getpwent` from `/etc/passwd`): the probe
//! after the call makes them objects, so a carved call on one maps its
//! bytes to the input, explores them, and lifts what it finds.

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

/// Carves `check` of fixture `name` with its input at `path` (`--input-at`),
/// explores it; every alarm's input holds `wanted` and aborts the program
/// where it reads it (rerun by `bridge exec`), and the machine's file
/// stays as it was.
fn lifted_at_fixed_path(name: &str, path: &str, input: &[u8], wanted: &str) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let prog = fixture(name, d);
    let p = prog.to_str().unwrap();
    let before = std::fs::read(path).unwrap();
    let at = ["--input-at", path, "--", p];
    let u = d.join("units");
    let carve = bridge(&[&["carve", "-o", u.to_str().unwrap(), "--functions", "^check$"][..], &at].concat(), input);
    assert!(carve.status.success(), "{}", stderr(&carve));
    let list = stdout(&bridge(&["units", u.to_str().unwrap()], b""));
    assert!(list.lines().any(|l| l.starts_with("check.") && l.contains(" (")), "no parameter of check: {list}");
    let o = d.join("out");
    let explore = [&["explore", u.to_str().unwrap(), "--tries", "60", "--json", "-o", o.to_str().unwrap()][..], &at];
    let sum = bridge_json(&explore.concat(), b"");
    assert!(sum["alarms"].as_array().unwrap().iter().any(|a| a["function"] == "check"), "no alarm in check: {sum}");
    let corpus = d.join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    for (k, a) in std::fs::read_dir(o.join("alarms")).unwrap().enumerate() {
        let lifted = std::fs::read(a.unwrap().path().join("input")).unwrap();
        assert!(String::from_utf8_lossy(&lifted).contains(wanted), "{}", String::from_utf8_lossy(&lifted));
        std::fs::write(corpus.join(k.to_string()), lifted).unwrap();
    }
    let ran = bridge_json(&[&["exec", "-c", corpus.to_str().unwrap(), "--json"][..], &at].concat(), b"");
    assert_eq!(ran["crashes"], ran["inputs"], "{ran}");
    assert_eq!(std::fs::read(path).unwrap(), before, "the machine's {path} changed");
}

/// Whether `--input-at` can work here: root, allowed to make a mount
/// namespace (root in a container without `CAP_SYS_ADMIN` is not).
fn root() -> bool {
    let root = unsafe { libc::geteuid() } == 0;
    let mounts = root && std::process::Command::new("unshare").args(["-m", "true"]).status().is_ok_and(|s| s.success());
    if !mounts {
        eprintln!("skipped: --input-at needs root with the right to make a mount namespace");
    }
    mounts
}

/// `getpwent` reads `/etc/passwd`, which no argument names: with
/// `--input-at /etc/passwd` every run (the carving one, the unit level's
/// lifts, the reruns of `bridge exec`) sees its input there, in a mount
/// namespace of its own.
#[test]
fn a_passwd_record_getpwent_reads_at_a_fixed_path_is_lifted_there() {
    if root() {
        let input = b"root:x:0:0:root:/root:/bin/bash\nann:x:1000:1000:Ann:/home/ann:/bin/csh\n";
        lifted_at_fixed_path("accounts", "/etc/passwd", input, "/bin/zsh");
    }
}

/// `getaddrinfo` reads `/etc/hosts`: the canonical name it returns is in
/// a block libc allocates (the runtime's allocator knows it), a string
/// mapped to the line of the hosts file it came from, solved shorter and
/// lifted there.
#[test]
fn getaddrinfo_s_canonical_name_from_a_hosts_file_is_lifted_there() {
    if root() {
        let input = b"127.0.0.1 localhost\n10.0.0.1 gateway.example.internal gateway\n";
        lifted_at_fixed_path("hosts", "/etc/hosts", input, "10.0.0.1 router.internal gateway");
    }
}

/// `gethostbyname` returns a `struct hostent` of libc's own, which the
/// records probe makes an object (its name, aliases and addresses too).
#[test]
fn gethostbyname_s_record_from_a_hosts_file_is_lifted_there() {
    if root() {
        let input = b"127.0.0.1 localhost\n10.0.0.1 gateway.example.internal gateway\n";
        lifted_at_fixed_path("hostent", "/etc/hosts", input, "10.0.0.1 router.internal gateway");
    }
}
