//! The client side of the fork server (protocol in `model::protocol`).

use crate::contain::{absolute_args, Jail};
use crate::scratch::ScratchFile;
use crate::shm::SharedMap;
use crate::{Error, InputMode, Outcome, Target};
use model::protocol::{Hello, ModuleRange, CTL_FD, HELLO_LEN, MAX_MODULES, MODULE_LEN, PROTOCOL_VERSION, ST_FD};
use model::{env, MAP_SIZE};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long the target may take to reach `main` and say hello.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// A running fork server and the shared map its children write.
pub struct ForkServer {
    target: Target,
    map: SharedMap,
    scratch: tempfile::TempDir,
    input: ScratchFile,
    /// The argument file (`--args-in-input`), kept open as the input is:
    /// rewriting it in place spares the file system a truncate and close
    /// per run (ext4 flushes a file truncated to nothing when it is closed).
    args: ScratchFile,
    jail: Option<Jail>,
    /// The input at a fixed path too (`Target::input_at`).
    bind: Option<crate::input_at::Bind>,
    proc: Option<Running>,
    hello: Hello,
    modules: Vec<ModuleRange>,
    /// The part of the map runs write: the end of the modules' counters
    /// (64-byte aligned), grown when a module registered late says so.
    /// Only this part is cleared before a run and read after it: on a
    /// small library, a fraction of the 64 KiB.
    extent: usize,
    restarts: u32,
    /// The time limit of the next runs: the target's, or shorter.
    run_timeout: Duration,
    /// What the limits cost (see `timeouts.rs`).
    pub(crate) timeouts: crate::timeouts::Timeouts,
    /// How long the last run took, input written included.
    pub(crate) last_run: Duration,
    /// The sanitizers the program carries, and where runs write their
    /// reports (`PREFIX.PID`).
    sanitizers: crate::sanitizer::Sanitizers,
    report_prefix: PathBuf,
    last_pid: i32,
    /// The last run's child stopped itself to run again (persistent mode).
    child_stopped: bool,
    /// Crashes of a child that had run other inputs before which the same
    /// input, run again in a fresh child, did not repeat.
    stateful_crashes: u64,
    /// The sanitizer's report of the last run, when it crashed with one.
    last_report: Option<String>,
}

struct Running {
    child: Child,
    ctl: File,
    st: File,
}

impl ForkServer {
    /// Starts `target` under a fork server and waits for its hello.
    pub fn start(target: Target) -> Result<ForkServer, Error> {
        let (program, mut env) = crate::libtool::unwrap(&resolve(&target.program)?)?;
        env.extend(target.env);
        let scratch = tempfile::Builder::new().prefix("carve-exec").tempdir_in(scratch_base())?;
        let sanitizers = crate::sanitizer::detect(&program);
        let reports = scratch.path().join("reports");
        let mut mem_limit_mb = target.mem_limit_mb;
        if sanitizers.any() {
            use std::os::unix::fs::PermissionsExt;
            std::fs::create_dir(&reports)?;
            std::fs::set_permissions(&reports, std::fs::Permissions::from_mode(0o1777))?;
            let limit = if sanitizers.address { mem_limit_mb.take() } else { None };
            let opts = crate::sanitizer::Options::from_env(target.detect_leaks, limit);
            env.extend(crate::sanitizer::environment(sanitizers, &opts, &reports.join("report")));
        }
        if target.persistent > 1 && !target.detect_leaks {
            env.push((env::PERSISTENT.to_string(), target.persistent.to_string()));
        }
        let target = Target { program, env, mem_limit_mb, ..target };
        let map = SharedMap::new().map_err(Error::Shm)?;
        let mut input = ScratchFile::create(scratch.path().join("input"))?;
        // Standard input is the test's file unless every run names it (`@@`).
        input.rewind = target.args_in_input || target.input_mode() == InputMode::Stdin;
        let mut args = ScratchFile::create(scratch.path().join("args"))?;
        args.rewind = false;
        let jail = if target.contain { Some(Jail::new(scratch.path())?) } else { None };
        let bind = match &target.input_at {
            Some(at) => Some(crate::input_at::Bind::new(input.path(), at)?),
            None => None,
        };
        // A target may write to the file it reads at a fixed path (as root,
        // `--no-contain`): its length is set for every test.
        input.exact = bind.is_some();
        let target = if target.contain { Target { args: absolute_args(&target.args), ..target } } else { target };
        let run_timeout = target.timeout;
        let mut fs = ForkServer {
            target,
            map,
            scratch,
            input,
            args,
            jail,
            bind,
            proc: None,
            hello: Hello { version: 0, edges: 0, branches: 0 },
            extent: 0,
            modules: Vec::new(),
            restarts: 0,
            run_timeout,
            timeouts: Default::default(),
            last_run: Duration::ZERO,
            sanitizers,
            report_prefix: reports.join("report"),
            last_pid: 0,
            child_stopped: false,
            stateful_crashes: 0,
            last_report: None,
        };
        fs.spawn()?;
        Ok(fs)
    }

    /// What the target said about itself.
    pub fn hello(&self) -> Hello {
        self.hello
    }

    /// Where each instrumented module's counters sit in the map.
    pub fn modules(&self) -> &[ModuleRange] {
        &self.modules
    }

    /// The map slots that count branch outcomes (the rest count function
    /// entries).
    pub fn branch_slots(&self) -> Vec<usize> {
        let mut slots: Vec<usize> = self
            .modules
            .iter()
            .flat_map(|m| (m.base + m.functions) as usize..(m.base + m.edges) as usize)
            .filter(|&s| s < MAP_SIZE)
            .collect();
        slots.sort_unstable();
        slots.dedup();
        slots
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Sets the time limit of the next runs, at most the target's own
    /// (which also sets the CPU-time limit of the fork server's children).
    pub fn set_run_timeout(&mut self, timeout: Duration) {
        self.run_timeout = timeout.min(self.target.timeout);
    }

    /// How often the fork server had to be restarted.
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// How long the last run took (the last of a recheck's two).
    pub fn last_run_time(&self) -> Duration {
        self.last_run
    }

    /// The coverage map of the last run: the part the modules use (the
    /// rest is zero).
    pub fn map(&self) -> &[u8] {
        &self.map.as_slice()[..self.extent]
    }

    /// Runs the target once on `input` under the current limit (see
    /// `timeouts.rs` for `run`, which re-checks calibrated timeouts).
    pub(crate) fn run_restarting(&mut self, input: &[u8]) -> Result<Outcome, Error> {
        self.write_input(input)?;
        match self.run_once() {
            Ok(outcome) => Ok(outcome),
            Err(Error::ForkServerDied(_)) => {
                // One restart: a fork server can die of what a run did to it.
                self.restarts += 1;
                self.stop();
                self.spawn()?;
                self.run_once()
            }
            Err(e) => Err(e),
        }
    }

    fn write_input(&mut self, test: &[u8]) -> Result<(), Error> {
        let input = if self.target.args_in_input {
            let (line, content) = crate::split_test(test);
            let path = self.input.path().as_os_str().as_encoded_bytes();
            let mut args = Vec::new();
            for a in line.iter().map(Vec::as_slice).chain(self.target.args.iter().map(|a| a.as_bytes())) {
                args.extend(crate::substitute(a, path));
                args.push(0);
            }
            self.args.rewrite(&args)?;
            content
        } else {
            test
        };
        self.input.rewrite(input)
    }

    /// Crashes in a child that had run other inputs before, which the
    /// input did not repeat in a fresh child (persistent mode): the run
    /// counts as the fresh child's.
    pub fn stateful_crashes(&self) -> u64 {
        self.stateful_crashes
    }

    /// One run; a crash in a child that had run other inputs before is
    /// run again in a fresh one (the crashed child is gone), so that a
    /// failure is the input's own, never that of the runs before it.
    fn run_once(&mut self) -> Result<Outcome, Error> {
        let reused = self.child_stopped;
        let outcome = self.run_in_child()?;
        if !(reused && outcome.is_crash()) {
            return Ok(outcome);
        }
        let again = self.run_in_child()?;
        if !again.is_crash() {
            self.stateful_crashes += 1;
        }
        Ok(again)
    }

    fn run_in_child(&mut self) -> Result<Outcome, Error> {
        self.map.clear(self.extent);
        let timeout = self.run_timeout;
        let died = || Error::ForkServerDied(self.target.program.clone());
        let p = self.proc.as_mut().ok_or_else(died)?;
        if p.ctl.write_all(&[0; 4]).is_err() {
            return Err(died());
        }
        // A stopped child runs again now, or a fresh one does.
        self.child_stopped = false;
        let mut word = [0u8; 4];
        if !read_within(&mut p.st, &mut word, HANDSHAKE) {
            return Err(died());
        }
        let pid = i32::from_le_bytes(word);
        if pid <= 0 {
            return Err(died());
        }
        self.last_pid = pid;
        let mut timed_out = false;
        if !read_within(&mut p.st, &mut word, timeout) {
            timed_out = true;
            // A target that writes its stack (`CARVE_STACK_OUT`) is asked
            // where it hangs first, and given a moment to say it.
            let stack = self.target.env.iter().any(|(k, _)| k == env::STACK_OUT);
            // SAFETY: signalling the process group of this run.
            if stack && unsafe { libc::kill(pid, libc::SIGUSR2) } == 0 && read_within(&mut p.st, &mut word, STACK_GRACE)
            {
                kill_group(pid);
                self.take_late_modules();
                return self.finish(word, true);
            }
            kill_group(pid);
            if !read_within(&mut p.st, &mut word, HANDSHAKE) {
                return Err(died());
            }
        }
        self.take_late_modules();
        let status = i32::from_le_bytes(word);
        self.child_stopped = !timed_out && libc::WIFSTOPPED(status);
        if self.child_stopped {
            // A persistent child ended its run: it waits for the next.
            return self.finish(0i32.to_le_bytes(), false);
        }
        // Whatever the run left behind in its process group goes too.
        kill_group(pid);
        self.finish(word, timed_out)
    }

    /// A module registered during the run (a library it loaded) announced
    /// where its counters end: the map's used part grows to take them in,
    /// this run's included (nothing wrote there before).
    fn take_late_modules(&mut self) {
        if let Some(end) = self.map.take_late_end() {
            self.extent = self.extent.max(end.next_multiple_of(64).min(MAP_SIZE));
        }
    }

    fn finish(&mut self, status: [u8; 4], timed_out: bool) -> Result<Outcome, Error> {
        if let Some(jail) = &self.jail {
            jail.clean()?;
        }
        let outcome = Outcome::from_wait_status(i32::from_le_bytes(status), timed_out);
        self.last_report = None;
        if self.sanitizers.any() {
            let path = format!("{}.{}", self.report_prefix.display(), self.last_pid);
            if outcome.is_crash() {
                self.last_report = std::fs::read(&path).ok().map(|b| String::from_utf8_lossy(&b).into_owned());
            }
            let _ = std::fs::remove_file(&path);
        }
        Ok(outcome)
    }

    /// The sanitizer's report of the last run, when it crashed with one
    /// (the program is built with ASan or UBSan).
    pub fn last_report(&self) -> Option<&str> {
        self.last_report.as_deref()
    }

    /// The sanitizers the program carries.
    pub fn sanitizers(&self) -> crate::sanitizer::Sanitizers {
        self.sanitizers
    }

    fn spawn(&mut self) -> Result<(), Error> {
        let t = &self.target;
        let (ctl_r, ctl_w) = std::io::pipe()?;
        let (st_r, st_w) = std::io::pipe()?;
        let stdin = match t.input_mode() {
            InputMode::Stdin => Stdio::from(self.input.file.try_clone()?),
            InputMode::File => Stdio::null(),
        };
        let out = || {
            if t.show_output {
                Stdio::inherit()
            } else {
                Stdio::null()
            }
        };
        let mut cmd = Command::new(&t.program);
        if let Some(jail) = &self.jail {
            cmd.current_dir(jail.work());
            if let Some((uid, gid)) = jail.run_as {
                cmd.env(env::RUN_AS, format!("{uid}:{gid}"));
            }
        }
        cmd.args(t.args_for(&self.input.path().to_string_lossy()))
            .env(env::SHM_ID, self.map.id().to_string())
            .env(env::FORKSRV, "1")
            .envs(t.args_in_input.then(|| (env::ARGS_FILE, self.args.path().as_os_str())))
            .envs(t.env.iter().map(|(k, v)| (k, v)))
            .stdin(stdin)
            .stdout(out())
            .stderr(out());
        let (ctl_fd, st_fd) = (OwnedFd::from(ctl_r), OwnedFd::from(st_w));
        let (ctl_raw, st_raw) = (ctl_fd.as_raw_fd(), st_fd.as_raw_fd());
        let mem = t.mem_limit_mb;
        let fsize = t.fsize_limit_mb;
        let cpu_secs = t.timeout.as_secs() * 2 + 1;
        let contain = t.contain;
        let bind = self.bind.clone();
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if let Some(b) = &bind {
                    b.apply()?;
                }
                move_fd(ctl_raw, CTL_FD)?;
                move_fd(st_raw, ST_FD)?;
                libc::setsid();
                libc::signal(libc::SIGPIPE, libc::SIG_DFL);
                let zero = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                libc::setrlimit(libc::RLIMIT_CORE, &zero);
                if let Some(mb) = mem {
                    let lim = libc::rlimit { rlim_cur: mb << 20, rlim_max: mb << 20 };
                    libc::setrlimit(libc::RLIMIT_AS, &lim);
                }
                if let Some(mb) = fsize {
                    let lim = libc::rlimit { rlim_cur: mb << 20, rlim_max: mb << 20 };
                    libc::setrlimit(libc::RLIMIT_FSIZE, &lim);
                }
                if contain {
                    // Per run: each forked child starts with no CPU time used.
                    let lim = libc::rlimit { rlim_cur: cpu_secs, rlim_max: cpu_secs + 1 };
                    libc::setrlimit(libc::RLIMIT_CPU, &lim);
                }
                Ok(())
            });
        }
        let child = cmd.spawn().map_err(|err| match &self.bind {
            Some(b) => b.failed_start(&t.program, err),
            None => Error::Spawn { path: t.program.clone(), err },
        })?;
        drop((ctl_fd, st_fd));
        let mut running = Running { child, ctl: File::from(OwnedFd::from(ctl_w)), st: File::from(OwnedFd::from(st_r)) };
        let mut hello = [0u8; HELLO_LEN];
        let fail = |why: &str| Error::NoForkServer(t.program.clone(), why.to_string());
        if !read_within(&mut running.st, &mut hello, HANDSHAKE) {
            // EOF may come a moment before the dying child can be reaped.
            let mut ended = running.child.try_wait();
            for _ in 0..100 {
                if !matches!(ended, Ok(None)) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
                ended = running.child.try_wait();
            }
            let why = match ended {
                Ok(Some(status)) => format!("it ended ({status}) before saying hello"),
                _ => "no hello within 10 s (is it stuck before main?)".to_string(),
            };
            let _ = running.child.kill();
            let _ = running.child.wait();
            if !has_runtime(&t.program) {
                return Err(fail(&why));
            }
            let hint = match ended {
                Ok(Some(status)) if status.code() == Some(127) => {
                    " (exit status 127: the loader could not start it; is a shared library it needs not found?)"
                }
                _ => "",
            };
            let what = why.strip_prefix("it ").map_or(why.clone(), |w| w.replace(" before saying hello", ""));
            return Err(Error::StartFailed(t.program.clone(), what, hint));
        }
        let Some(h) = Hello::decode(&hello) else {
            let _ = running.child.kill();
            let _ = running.child.wait();
            return Err(fail("it speaks another protocol"));
        };
        if h.version != PROTOCOL_VERSION {
            let _ = running.child.kill();
            let _ = running.child.wait();
            let why = format!(
                "protocol version {} where {PROTOCOL_VERSION} is expected: rebuild it with this carve-clang",
                h.version
            );
            return Err(fail(&why));
        }
        let Some(modules) = read_modules(&mut running.st) else {
            let _ = running.child.kill();
            let _ = running.child.wait();
            return Err(fail("its module table is cut short"));
        };
        self.hello = Hello { edges: h.edges.min(MAP_SIZE as u32), ..h };
        // Never smaller than before a restart: counters a late module wrote
        // past the hello's modules are cleared with the rest.
        self.extent = self.extent.max(used_extent(&modules, h.edges));
        if std::env::var_os(env::WHOLE_MAP).is_some_and(|v| v == "1") {
            self.extent = MAP_SIZE;
        }
        self.modules = modules;
        self.proc = Some(running);
        Ok(())
    }

    fn stop(&mut self) {
        if std::mem::take(&mut self.child_stopped) {
            kill_group(self.last_pid);
        }
        if let Some(mut p) = self.proc.take() {
            let _ = p.child.kill();
            let _ = p.child.wait();
        }
    }

    /// The file that stands for `@@`.
    pub fn input_path(&self) -> &std::path::Path {
        self.input.path()
    }

    /// The scratch directory holding the input file.
    pub fn scratch(&self) -> &std::path::Path {
        self.scratch.path()
    }
}

impl Drop for ForkServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The end of the map's part that `modules` use, 64-byte aligned; the
/// whole map when the table does not list every module (more than
/// `MAX_MODULES`), when counters wrapped past the map's end, or when there
/// is no table.
fn used_extent(modules: &[ModuleRange], total_edges: u32) -> usize {
    let listed: u64 = modules.iter().map(|m| m.edges as u64).sum();
    if modules.is_empty() || listed < total_edges as u64 || total_edges as usize >= MAP_SIZE {
        return MAP_SIZE;
    }
    let end = modules.iter().map(|m| m.base as usize + m.edges as usize).max().unwrap_or(MAP_SIZE);
    end.next_multiple_of(64).min(MAP_SIZE)
}

fn read_modules(st: &mut File) -> Option<Vec<ModuleRange>> {
    let mut word = [0u8; 4];
    if !read_within(st, &mut word, HANDSHAKE) {
        return None;
    }
    let n = (u32::from_le_bytes(word) as usize).min(MAX_MODULES);
    let mut modules = Vec::with_capacity(n);
    for _ in 0..n {
        let mut m = [0u8; MODULE_LEN];
        if !read_within(st, &mut m, HANDSHAKE) {
            return None;
        }
        modules.push(ModuleRange::decode(&m));
    }
    Some(modules)
}

/// Whether `program` carries the runtime (its entry points' names are in
/// it, in the dynamic symbol table if nowhere else): then a fork server
/// that did not start is a failure at start-up, not a missing build.
fn has_runtime(program: &std::path::Path) -> bool {
    std::fs::read(program).is_ok_and(|b| memchr::memmem::find(&b, model::MAIN_ENTRY.as_bytes()).is_some())
}

/// Where the scratch directories go: `TMPDIR` when it is set, else
/// `/dev/shm` (memory: the test written before every run, and the working
/// directory emptied after it, cost no disk metadata), else the system's
/// temporary directory.
fn scratch_base() -> PathBuf {
    if let Some(t) = std::env::var_os("TMPDIR").filter(|t| !t.is_empty()) {
        return PathBuf::from(t);
    }
    let shm = std::path::Path::new("/dev/shm");
    // SAFETY: a NUL-terminated path.
    let writable = unsafe { libc::access(c"/dev/shm".as_ptr(), libc::W_OK | libc::X_OK) } == 0;
    if shm.is_dir() && writable {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

/// Finds the program as a shell would (a bare name is looked up in PATH).
pub fn resolve(program: &std::path::Path) -> Result<PathBuf, Error> {
    use std::os::unix::fs::PermissionsExt;
    let executable =
        |p: &std::path::Path| p.metadata().map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0).unwrap_or(false);
    if program.components().count() > 1 {
        return if executable(program) {
            // Absolute: the target may run in another working directory.
            std::fs::canonicalize(program).map_err(|_| Error::NoTarget(program.to_path_buf()))
        } else {
            Err(Error::NoTarget(program.to_path_buf()))
        };
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(program))
        .find(|p| executable(p))
        .ok_or_else(|| Error::NoTarget(program.to_path_buf()))
}

fn move_fd(from: i32, to: i32) -> std::io::Result<()> {
    // SAFETY: plain fd calls in the child before exec.
    unsafe {
        if from == to {
            let flags = libc::fcntl(to, libc::F_GETFD);
            libc::fcntl(to, libc::F_SETFD, flags & !libc::FD_CLOEXEC);
        } else if libc::dup2(from, to) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// How long a hung run that writes its stack is given to write it (the
/// wait ends when it has: this is a bound for a loaded machine, where 50
/// ms was sometimes too short and a hang was kept without its stack).
const STACK_GRACE: Duration = Duration::from_millis(500);

fn kill_group(pid: i32) {
    // SAFETY: signalling a process group we created.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
        libc::kill(pid, libc::SIGKILL);
    }
}

/// Reads exactly `buf.len()` bytes, giving up after `limit`.
fn read_within(f: &mut File, buf: &mut [u8], limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let mut off = 0;
    while off < buf.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut pfd = libc::pollfd { fd: f.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let ms = left.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd.
        let r = unsafe { libc::poll(&mut pfd, 1, ms) };
        if r < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        if r <= 0 {
            return false;
        }
        match f.read(&mut buf[off..]) {
            Ok(0) | Err(_) => return false,
            Ok(n) => off += n,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(base: u32, edges: u32) -> ModuleRange {
        ModuleRange { base, functions: 0, edges }
    }

    #[test]
    fn the_used_part_of_the_map_ends_with_the_last_module() {
        assert_eq!(used_extent(&[m(0, 100), m(100, 30)], 130), 192);
        assert_eq!(used_extent(&[m(0, 128)], 128), 128);
        // No table, a table cut short, counters that wrapped: all of it.
        assert_eq!(used_extent(&[], 0), MAP_SIZE);
        assert_eq!(used_extent(&[m(0, 100)], 250), MAP_SIZE);
        assert_eq!(used_extent(&[m(0, MAP_SIZE as u32)], MAP_SIZE as u32), MAP_SIZE);
    }
}
