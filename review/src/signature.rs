//! A failure's signature: run the test once with the stack asked for, and
//! symbolize what the runtime wrote.

use crate::stack::{self, Dump, Ran};
use crate::Error;
use model::alarm::{FailureKind, Signature};
use std::path::Path;
use std::time::Duration;

/// Runs `test` and gives its signature, `None` when it does not fail
/// (exits, with any status). `symbolizer`: see [`crate::symbolize::find`].
pub fn of_test(
    target: &exec::Target,
    test: &[u8],
    timeout: Duration,
    symbolizer: Option<&Path>,
) -> Result<Option<(Signature, Dump)>, Error> {
    let (ran, dump) = stack::run(target, test, timeout)?;
    let kind = match ran {
        Ran::Exit(_) => return Ok(None),
        Ran::Signal(s) => FailureKind::Signal(signal_name(s)),
        Ran::Hang => FailureKind::Hang,
    };
    Ok(Some((from_dump(kind, &dump, &target.program, symbolizer), dump)))
}

/// The signature of a failure of `kind` whose stack is `dump`.
/// A hang is named by the function it was in (at its first line), not by
/// the instruction of its loop it happened to be at.
pub fn from_dump(kind: FailureKind, dump: &Dump, program: &Path, symbolizer: Option<&Path>) -> Signature {
    let at = if kind == FailureKind::Hang { dump.func.as_ref().or(dump.pc.as_ref()) } else { dump.pc.as_ref() };
    let places: Vec<_> = at.into_iter().chain(&dump.frames).cloned().collect();
    let frames = crate::symbolize::frames(symbolizer, program, &places, at.is_some());
    Signature { kind, frames }
}

/// `SIGSEGV` for 11, and so on (`signal N` for one without a name).
pub fn signal_name(sig: i32) -> String {
    exec::signal_name(sig).map_or_else(|| format!("signal {sig}"), str::to_string)
}
