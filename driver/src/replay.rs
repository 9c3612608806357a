//! One unit replayed in a fresh process: how the process ended and, when
//! the call returned, its outcome (return value, edges reached).

use crate::{Error, Result};
use exec::Outcome;
use model::env;
use model::snapshot::{next_record, KIND_OUTCOME};
use model::unit::CallOutcome;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

/// Replays the unit file `unit` in `program`, started with `args` (the
/// unit's `program_args`).
pub fn replay_one(
    program: &Path,
    args: &[String],
    unit: &Path,
    timeout: Duration,
) -> Result<(Outcome, Option<CallOutcome>)> {
    let out = tempfile::Builder::new().prefix("carve-replay").tempdir()?;
    std::fs::set_permissions(out.path(), std::fs::Permissions::from_mode(0o777))?;
    let unit_abs = std::fs::canonicalize(unit).map_err(|e| Error::Read(unit.to_path_buf(), e))?;
    let unit_copy = out.path().join("unit");
    std::fs::copy(&unit_abs, &unit_copy)?;
    std::fs::set_permissions(&unit_copy, std::fs::Permissions::from_mode(0o644))?;
    let result = out.path().join("outcome");
    let mut t = exec::Target::new(program, crate::carve::start_args(args));
    t.timeout = timeout;
    t.env.push((env::REPLAY.into(), unit_copy.display().to_string()));
    t.env.push((env::REPLAY_OUT.into(), result.display().to_string()));
    let mut fs = exec::ForkServer::start(t).map_err(|e| Error::Start(program.to_path_buf(), e))?;
    let outcome = fs.run(b"")?;
    let replayed = std::fs::read(&result).ok().and_then(|b| {
        let (kind, payload, _) = next_record(&b).ok()?;
        (kind == KIND_OUTCOME).then(|| CallOutcome::decode_payload(payload).ok()).flatten()
    });
    Ok((outcome, replayed))
}
