//! Running one unit test again and again with new parameter values: a
//! unit fork server on the unit's program, which restores the carved
//! context once (before it serves) and forks a try per value; each try
//! applies a patch of the parameter bytes only (`CARVE_REPLAY_PATCH`,
//! rewritten before each try, readable by the target's user). The carving
//! run's input is there again: its `@@` file where it was, or its content
//! on each try's stdin, so a replayed `main` reads what it read (or the
//! try's new content: `Site::InputFile`). Also the unit-level coverage
//! reached so far.

use crate::try_limit::TryLimit;
use crate::{Error, Result};
use exec::{Coverage, ForkServer, Outcome, Target};
use model::env;
use model::symtrace::{encode_sym_in, Trace};
use model::trace::{SymInput, SYM_IN_FILE};
use model::unit::Unit;
use model::{REPLAY_EXIT_MALFORMED, REPLAY_EXIT_NOT_REPLAYABLE, REPLAY_EXIT_UNREADABLE};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where a try's context comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restore {
    /// The fork server restores the unit once; a try applies its patch.
    Once,
    /// Every try reads and restores the whole unit (for comparison).
    EachTry,
}

pub struct UnitRunner {
    fs: ForkServer,
    base: Unit,
    restore: Restore,
    /// The patch file (`Once`) or the unit file (`EachTry`).
    patch: PathBuf,
    cov: Coverage,
    /// How the unit, as carved, ended when replayed.
    pub first: Outcome,
    limit: TryLimit,
    /// Where symbolic tries leave their traces.
    trace: Option<PathBuf>,
    /// Each try's stdin: what the carving run's was (its input, or nothing
    /// when the input was the `@@` file).
    content: Vec<u8>,
    /// The input file's content as the last try had it.
    file_content: Vec<u8>,
    input: crate::input_file::InputFile,
    _dir: tempfile::TempDir,
}

impl UnitRunner {
    /// Starts the unit fork server on `unit` and replays it once, as it
    /// was carved, for the coverage new values must beat. A unit the
    /// program cannot replay at all (unknown function, another binary) is
    /// an error.
    /// With `symbolic`, each try is a symbolic replay of those parameter
    /// bytes and leaves a trace ([`UnitRunner::take_trace`]).
    pub fn start(
        program: &Path,
        timeout: Duration,
        unit: &Unit,
        restore: Restore,
        symbolic: Option<&[SymInput]>,
    ) -> Result<UnitRunner> {
        let dir = tempfile::Builder::new().prefix("carve-unit").tempdir()?;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))?;
        let (path, patch) = (dir.path().join("unit"), dir.path().join("patch"));
        for (p, bytes) in [(&path, unit.encode()), (&patch, Vec::new())] {
            std::fs::write(p, bytes)?;
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o644))?;
        }
        let mut t = Target::new(program, crate::carve::start_args(&unit.meta.program_args));
        t.timeout = timeout;
        let trace = dir.path().join("trace");
        if let Some(inputs) = symbolic {
            let spec = dir.path().join("sym-in");
            std::fs::write(&spec, encode_sym_in(inputs))?;
            std::fs::set_permissions(&spec, std::fs::Permissions::from_mode(0o644))?;
            // The target's user writes the trace.
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777))?;
            t.env.push((env::SYM_IN.into(), spec.display().to_string()));
            t.env.push((env::SYM_OUT.into(), trace.display().to_string()));
            if inputs.iter().any(|i| i.object == SYM_IN_FILE) {
                let file = if unit.meta.input_on_stdin { "-".to_string() } else { unit.meta.input_path.clone() };
                t.env.push((env::SYM_FILE.into(), file));
            }
        }
        t.env.push((env::REPLAY.into(), path.display().to_string()));
        let patch = match restore {
            Restore::Once => {
                t.env.push((env::REPLAY_PATCH.into(), patch.display().to_string()));
                patch
            }
            Restore::EachTry => path,
        };
        let fs = ForkServer::start(t).map_err(|e| Error::Start(program.to_path_buf(), e))?;
        let mut r = UnitRunner {
            fs,
            base: unit.clone(),
            restore,
            patch,
            cov: Coverage::default(),
            first: Outcome::Exit(0),
            limit: TryLimit::new(timeout, symbolic.is_some()),
            trace: symbolic.map(|_| trace),
            content: if unit.meta.input_on_stdin { unit.meta.input_content.clone() } else { Vec::new() },
            file_content: unit.meta.input_content.clone(),
            input: crate::input_file::InputFile::recreate(&unit.meta),
            _dir: dir,
        };
        let first = r.run(&if restore == Restore::Once { Vec::new() } else { unit.encode() })?;
        r.cov.add(r.fs.map());
        if let Outcome::Exit(c @ (REPLAY_EXIT_UNREADABLE | REPLAY_EXIT_MALFORMED | REPLAY_EXIT_NOT_REPLAYABLE)) = first
        {
            return Err(Error::NotReplayable {
                program: program.to_path_buf(),
                function: unit.meta.function.clone(),
                status: c,
            });
        }
        r.first = first;
        Ok(r)
    }

    /// Replays `unit` (the started unit with other parameter values): how
    /// it ended, and the unit-level edges it reached that no earlier try
    /// reached.
    pub fn try_unit(&mut self, unit: &Unit) -> Result<(Outcome, Vec<usize>)> {
        let patch = match self.restore {
            Restore::Once => unit.snapshot.patch_over(&self.base.snapshot).ok_or(Error::OtherUnit)?,
            Restore::EachTry => unit.encode(),
        };
        if unit.meta.input_content != self.file_content {
            self.file_content = unit.meta.input_content.clone();
            if unit.meta.input_on_stdin {
                self.content = self.file_content.clone();
            } else if !self.input.rewrite(&self.file_content) {
                return Err(Error::InputFile(unit.meta.input_path.clone()));
            }
        }
        let outcome = self.run(&patch)?;
        let new = self.cov.new_edges(self.fs.map());
        self.cov.add(self.fs.map());
        Ok((outcome, new))
    }

    /// Of the directions `t` took with a coverage-map slot, how many
    /// there were and how many the last try's map did not count: the
    /// symbolic clone's branches name the counters of their edges, so
    /// the second is zero but for an 8-bit counter that wrapped.
    pub fn slot_check(&self, t: &Trace) -> (u64, u64) {
        let map = self.fs.map();
        let slots = t.path.iter().filter_map(|e| {
            let dir = match e.kind {
                model::trace::PATH_SWITCH if !e.cases.contains(&e.taken) => None,
                _ => Some(e.taken),
            };
            e.slot(dir)
        });
        slots.fold((0, 0), |(n, missed), k| (n + 1, missed + u64::from(map.get(k as usize) == Some(&0))))
    }

    /// The last tries all timed out: more would only spend the budget.
    pub fn hopeless(&self) -> bool {
        self.limit.hopeless()
    }

    /// The trace of the last try, when it was symbolic and finished; a
    /// trace that does not decode is reported as an error.
    pub fn take_trace(&mut self) -> Result<Option<Trace>> {
        let Some(path) = &self.trace else { return Ok(None) };
        let Ok(bytes) = std::fs::read(path) else { return Ok(None) };
        let _ = std::fs::remove_file(path);
        Ok(Some(Trace::decode(&bytes).map_err(Error::BadTrace)?))
    }

    fn run(&mut self, patch: &[u8]) -> Result<Outcome> {
        if let Some(t) = &self.trace {
            let _ = std::fs::remove_file(t);
        }
        // Written in place: the file is only read by the forked try (with
        // `Once`, the fork server read its unit before serving).
        std::fs::write(&self.patch, patch)?;
        let limit = self.limit.next();
        self.fs.set_run_timeout(limit);
        let started = std::time::Instant::now();
        let outcome = self.fs.run(&self.content)?;
        self.limit.record(limit, started.elapsed(), outcome == Outcome::Timeout);
        Ok(outcome)
    }
}
