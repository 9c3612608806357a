//! One run of a test outside any fork server, with the runtime asked for
//! the failing stack (`CARVE_STACK_OUT`); a run past its time limit gets
//! `SIGUSR2` first, so a hang's stack says where it was.

use crate::Error;
use exec::Target;
use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where a frame is: the module (`-`: the program; `+PATH`: an
/// instrumented shared library) and the offset in it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Place {
    pub module: String,
    pub offset: u64,
}

/// What the runtime wrote: the signal, the interrupted instruction, then
/// the return addresses outwards.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dump {
    pub signal: Option<i32>,
    pub pc: Option<Place>,
    /// The start of the function the interrupted instruction is in.
    pub func: Option<Place>,
    pub frames: Vec<Place>,
    /// The sanitizer's report, when the program is built with ASan or
    /// UBSan and the run ended in one.
    pub report: Option<String>,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ran {
    Exit(i32),
    Signal(i32),
    Hang,
}

impl Dump {
    /// Reads the runtime's lines (see `runtime/src/stack.rs`); lines it
    /// does not know are skipped, so a cut-off file gives what it has.
    pub fn parse(text: &str) -> Dump {
        let mut d = Dump::default();
        for line in text.lines() {
            let mut w = line.split(' ');
            let place = |w: &mut std::str::Split<'_, char>| {
                let module = w.next()?.to_string();
                let offset = u64::from_str_radix(w.next()?, 16).ok()?;
                (module != "?").then_some(Place { module, offset })
            };
            match w.next() {
                Some("signal") => d.signal = w.next().and_then(|s| s.parse().ok()),
                Some("pc") => d.pc = place(&mut w),
                Some("func") => d.func = place(&mut w),
                Some("frame") => d.frames.extend(place(&mut w)),
                _ => {}
            }
        }
        d
    }

    /// The program's own places (its instrumented libraries' included),
    /// innermost first (the interrupted instruction, when in the program,
    /// then return addresses), `depth` of them: `0x1a2b` in the program,
    /// `libfoo.so+0x1a2b` in a library.
    pub fn own(&self, depth: usize) -> Vec<String> {
        own_places(self.pc.as_ref(), &self.frames, depth)
    }

    /// [`Dump::own`] for a hang: the function it was in rather than the
    /// instruction (a loop is met at any of its instructions).
    pub fn own_hang(&self, depth: usize) -> Vec<String> {
        own_places(self.func.as_ref().or(self.pc.as_ref()), &self.frames, depth)
    }
}

/// The program's own places among `at` and `frames`, `depth` at most.
fn own_places(at: Option<&Place>, frames: &[Place], depth: usize) -> Vec<String> {
    at.into_iter()
        .chain(frames)
        .filter_map(|p| match p.module.as_str() {
            "-" => Some(format!("{:#x}", p.offset)),
            m if m.starts_with('+') => Some(format!("{}+{:#x}", m.rsplit('/').next().unwrap_or(m), p.offset)),
            _ => None,
        })
        .take(depth)
        .collect()
}

/// Runs `test` on `target` once (its command line first when the target
/// takes it from the test), for at most `timeout`.
pub fn run(target: &Target, test: &[u8], timeout: Duration) -> Result<(Ran, Dump), Error> {
    let dir = tempfile::Builder::new().prefix("bridge-review-").tempdir().map_err(Error::Scratch)?;
    let input = dir.path().join("input");
    let stack = dir.path().join("stack");
    let (words, content) = if target.args_in_input { exec::split_test(test) } else { (Vec::new(), test) };
    std::fs::File::create(&input).and_then(|mut f| f.write_all(content)).map_err(Error::Scratch)?;
    let path = input.as_os_str().as_encoded_bytes();
    // The run is in a scratch directory: paths relative to ours are made
    // absolute.
    let program = if target.program.is_relative() && target.program.components().count() > 1 {
        std::fs::canonicalize(&target.program).unwrap_or_else(|_| target.program.clone())
    } else {
        target.program.clone()
    };
    let args = exec::absolute_args(&target.args);
    let (program, lib_env) = exec::libtool::unwrap(&program).map_err(Error::Target)?;
    let mut cmd = Command::new(&program);
    cmd.envs(lib_env);
    let sanitizers = exec::sanitizer::detect(&program);
    let report_prefix = dir.path().join("report");
    let opts = exec::sanitizer::Options::from_env(target.detect_leaks, None);
    cmd.envs(exec::sanitizer::environment(sanitizers, &opts, &report_prefix));
    for a in words.iter().map(Vec::as_slice).chain(args.iter().map(|a| a.as_bytes())) {
        let arg = exec::substitute(a, path);
        cmd.arg(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&arg));
    }
    let stdin = match target.input_mode() {
        exec::InputMode::Stdin => Stdio::from(std::fs::File::open(&input).map_err(Error::Scratch)?),
        exec::InputMode::File => Stdio::null(),
    };
    cmd.stdin(stdin).stdout(Stdio::null()).stderr(Stdio::null()).current_dir(dir.path()).process_group(0);
    cmd.envs(target.env.iter().map(|(k, v)| (k, v)));
    cmd.env(model::env::STACK_OUT, &stack);
    let bind = match &target.input_at {
        Some(at) => Some(exec::input_at::Bind::new(&input, at).map_err(Error::Target)?),
        None => None,
    };
    if let Some(b) = bind.clone() {
        // SAFETY: `apply` makes system calls only.
        unsafe { cmd.pre_exec(move || b.apply()) };
    }
    let mut child = cmd.spawn().map_err(|err| match &bind {
        Some(b) => Error::Target(b.failed_start(&target.program, err)),
        None => Error::Spawn { program: target.program.clone(), err },
    })?;
    let started = Instant::now();
    let mut hung = false;
    let status = loop {
        if let Ok(Some(s)) = child.try_wait() {
            break Some(s);
        }
        if !hung && started.elapsed() >= timeout {
            hung = true;
            signal_group(child.id(), libc::SIGUSR2);
        }
        if hung && started.elapsed() >= timeout + Duration::from_millis(500) {
            signal_group(child.id(), libc::SIGKILL);
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    // Whatever the run left of its group goes too.
    signal_group(child.id(), libc::SIGKILL);
    let mut dump = read_dump(&stack);
    let report = format!("{}.{}", report_prefix.display(), child.id());
    dump.report = std::fs::read(report).ok().map(|b| String::from_utf8_lossy(&b).into_owned());
    let ran = match status {
        _ if hung => Ran::Hang,
        Some(s) => match (s.signal(), s.code()) {
            (Some(sig), _) => Ran::Signal(sig),
            (None, Some(c)) => Ran::Exit(c),
            (None, None) => Ran::Exit(-1),
        },
        None => Ran::Exit(-1),
    };
    Ok((ran, dump))
}

fn read_dump(path: &Path) -> Dump {
    std::fs::read(path).map(|b| Dump::parse(&String::from_utf8_lossy(&b))).unwrap_or_default()
}

fn signal_group(pid: u32, sig: i32) {
    // SAFETY: signalling the process group this run made (its own pid).
    unsafe { libc::kill(-(pid as i32), sig) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumps_parse_and_keep_the_programs_own_places() {
        let d = Dump::parse(
            "signal 06\npc /lib/libc.so.6 8aeec\nframe /lib/libc.so.6 3bfb2\nframe - 6482\nframe ? 12\nframe - 5601\nbad line\n",
        );
        assert_eq!(d.signal, Some(6));
        assert_eq!(d.pc, Some(Place { module: "/lib/libc.so.6".into(), offset: 0x8aeec }));
        assert_eq!(d.frames.len(), 3);
        assert_eq!(d.own(1), ["0x6482"]);
        assert_eq!(d.own(5), ["0x6482", "0x5601"]);
        // A file cut short gives what it has.
        assert_eq!(Dump::parse("signal 11\npc - 5c").own(3), ["0x5c"]);
        let lib = Dump::parse("signal 6\npc /lib/libc.so.6 10\nframe +/b/.libs/librec.so 4a\nframe - 5c");
        assert_eq!(lib.own(3), ["librec.so+0x4a", "0x5c"]);
        let hang = Dump::parse("signal 12\npc - 5c\nfunc - 40\nframe - 90\n");
        assert_eq!(
            (hang.own(2), hang.own_hang(2)),
            (vec!["0x5c".to_string(), "0x90".into()], vec!["0x40".into(), "0x90".into()])
        );
    }
}
