//! carve-clang never corrupts its memory, never hangs a build, and names
//! the step and the file when something goes wrong.

use crate::{carve, fixtures, run_in};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Regression tests of memory errors in the pass, which valgrind sees
/// whatever the heap's layout:
/// - a function whose body was deleted block by block (the originals of
///   the out-of-line copies lose their bodies in the symbolic clones'
///   module) freed values that later blocks still used. The compiler then
///   hung or aborted at random, mostly with `-O2 -g`, whose larger heap
///   moved the damage where it showed (`loops.c`);
/// - an alias in the copies was erased as a global variable, which read
///   past its end (`aliases.c`; libxml2's `entities.c` crashed the pass).
#[test]
fn the_pass_writes_no_freed_memory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (fixture, args) in [("loops", &["a b  c", "the quick\tbrown fox", ""][..]), ("aliases", &["x", "y"][..])] {
        let src = format!("{fixture}.c");
        std::fs::copy(fixtures().join(&src), d.join(&src)).unwrap();
        for flags in [&["-O2", "-g"][..], &["-O0"][..]] {
            let mut vg = vec!["-q", "--error-exitcode=99", "--trace-children=no"];
            let exe = carve();
            vg.push(exe.to_str().unwrap());
            vg.extend(flags);
            vg.extend(["-c", &src, "-o", "out.o"]);
            let o =
                Command::new("valgrind").current_dir(d).args(&vg).output().expect("valgrind (scripts/install-deps.sh)");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success() && !err.contains("Invalid"), "{fixture} {flags:?}: {:?}\n{err}", o.status);
        }
        run_in(d, &carve(), &["-O2", "-g", "-o", fixture, &src]);
        run_in(d, Path::new("clang-19"), &["-O2", "-o", "plain", &src]);
        let mine = Command::new(d.join(fixture)).args(args).output().unwrap();
        let theirs = Command::new(d.join("plain")).args(args).output().unwrap();
        assert_eq!(mine.stdout, theirs.stdout, "{fixture}");
    }
}

fn compile_with(d: &Path, env: &[(&str, &str)]) -> (std::process::ExitStatus, String, Duration) {
    let t = Instant::now();
    let o =
        Command::new(carve()).current_dir(d).envs(env.iter().copied()).args(["-O2", "-c", "loops.c"]).output().unwrap();
    (o.status, String::from_utf8_lossy(&o.stderr).into_owned(), t.elapsed())
}

#[test]
fn a_step_past_its_limit_is_stopped_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(fixtures().join("loops.c"), d.join("loops.c")).unwrap();
    let (status, err, took) = compile_with(d, &[("CARVE_CC_TIMEOUT", "1"), ("CARVE_CC_FAULT", "hang:pass")]);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("the instrumentation pass (carve-clang) of loops.c still ran after 1 s"), "{err}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    // A clang that hangs is stopped too, with what it started.
    let cc = d.join("slow-cc");
    std::fs::write(&cc, format!("#!/bin/sh\necho $$ > {0}/pid\nsleep 300 &\necho $! > {0}/child\nwait\n", d.display()))
        .unwrap();
    Command::new("chmod").arg("+x").arg(&cc).status().unwrap();
    let (status, err, took) = compile_with(d, &[("CARVE_CC_TIMEOUT", "1.5"), ("CARVE_CC", cc.to_str().unwrap())]);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("the front end (clang to bitcode) of loops.c still ran after 1.5 s"), "{err}");
    assert!(took < Duration::from_secs(30), "{took:?}");
    let sleeper = std::fs::read_to_string(d.join("child")).unwrap();
    let alive = || {
        std::fs::read_to_string(format!("/proc/{}/stat", sleeper.trim()))
            .is_ok_and(|s| !s.rsplit_once(')').is_some_and(|(_, r)| r.trim_start().starts_with('Z')))
    };
    let t = Instant::now();
    while alive() && t.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!alive(), "what the hung compiler started was left running");
}

#[test]
fn a_crash_names_the_step_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(fixtures().join("loops.c"), d.join("loops.c")).unwrap();
    let (status, err, _) = compile_with(d, &[("CARVE_CC_FAULT", "crash:pass")]);
    assert_eq!(status.signal(), Some(libc::SIGSEGV), "{err}");
    assert!(err.contains("crashed (SIGSEGV) in the instrumentation pass (carve-clang) of loops.c"), "{err}");
    let (status, err, _) = compile_with(d, &[("CARVE_CC_FAULT", "crash:copies")]);
    assert!(status.signal().is_some() && err.contains("in the out-of-line copies"), "{err}");
    // Without a fault, the same compile works.
    let (status, err, _) = compile_with(d, &[]);
    assert!(status.success(), "{err}");
    let (status, err, _) = compile_with(d, &[("CARVE_CC_FAULT", "nap:pass")]);
    assert_eq!(status.code(), Some(2), "{err}");
}

/// A regression test of an object that did not link: the tables refer to
/// each global by a PC-relative difference, and LLVM's code generator
/// took an `unnamed_addr` constant holding a pointer, referred to that
/// way, for a GOT entry and dropped it, though a function still used it
/// (`undefined reference to g_759` in a csmith program at -O2).
#[test]
fn a_constant_holding_a_pointer_stays_defined() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ir = "@g = internal global i32 0, align 4\n\
              @c = internal unnamed_addr constant ptr @g, align 8\n\
              define ptr @pick(i1 %x, ptr %y) {\n\
              entry:\n  br i1 %x, label %a, label %b\n\
              a:\n  br label %b\n\
              b:\n  %p = phi ptr [ %y, %entry ], [ @c, %a ]\n  ret ptr %p\n}\n";
    std::fs::write(d.join("m.ll"), ir).unwrap();
    let run = |cmd: &str, args: &[&str]| {
        let o = Command::new(cmd).current_dir(d).args(args).output().unwrap();
        assert!(o.status.success(), "{cmd} {args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    run("llvm-as-19", &["m.ll", "-o", "m.bc"]);
    instrument::instrument_file(&d.join("m.bc"), &d.join("inst.bc"), &instrument::Options::default()).unwrap();
    run("llc-19", &["-O2", "-filetype=obj", "inst.bc", "-o", "inst.o"]);
    let symbols = run("nm", &["inst.o"]);
    let c = symbols.lines().find(|l| l.ends_with(" c")).unwrap_or_default();
    assert!(!c.is_empty() && !c.contains(" U "), "{symbols}");
}
