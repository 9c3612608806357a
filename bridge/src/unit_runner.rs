//! Running one unit test again and again with new parameter values: a
//! fork server on the unit's program in replay mode, the unit file it reads
//! (rewritten before each try, readable by the target's user), and the
//! unit-level coverage reached so far.

use ::exec::{Coverage, ForkServer, Newness, Outcome, Target};
use anyhow::Context;
use model::env;
use model::unit::Unit;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub struct UnitRunner {
    fs: ForkServer,
    path: PathBuf,
    cov: Coverage,
    _dir: tempfile::TempDir,
}

impl UnitRunner {
    /// Starts the replay fork server and runs `unit` once, as it was
    /// carved, for the coverage new values must beat.
    pub fn start(program: &Path, timeout: Duration, unit: &Unit) -> anyhow::Result<UnitRunner> {
        let dir = tempfile::Builder::new().prefix("carve-unit").tempdir()?;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))?;
        let path = dir.path().join("unit");
        let mut t = Target::new(program, Vec::new());
        t.timeout = timeout;
        t.env.push((env::REPLAY.into(), path.display().to_string()));
        let fs = ForkServer::start(t).with_context(|| format!("cannot start {}", program.display()))?;
        let mut r = UnitRunner { fs, path, cov: Coverage::default(), _dir: dir };
        r.try_unit(unit)?;
        Ok(r)
    }

    /// Replays `unit`: how it ended, and whether it reached unit-level
    /// edges no earlier try reached.
    pub fn try_unit(&mut self, unit: &Unit) -> anyhow::Result<(Outcome, bool)> {
        std::fs::write(&self.path, unit.encode())?;
        std::fs::set_permissions(&self.path, std::fs::Permissions::from_mode(0o644))?;
        let outcome = self.fs.run(b"")?;
        Ok((outcome, self.cov.add(self.fs.map()) == Newness::NewEdges))
    }
}
