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
    let program = exec::libtool::unwrap(&target.program).map(|(p, _)| p).unwrap_or_else(|_| target.program.clone());
    if let Some(r) = dump.report.as_deref().and_then(crate::report::parse) {
        if matches!(ran, Ran::Signal(_)) {
            return Ok(Some((from_report(&r, &program, symbolizer), dump)));
        }
    }
    Ok(Some((from_dump(kind, &dump, &target.program, symbolizer), dump)))
}

/// The signature of a sanitizer's report: its kind, and its stack
/// symbolized without the sanitizer's own frames (an interceptor such as
/// `__asan_memcpy`). A frame of a module that carries the runtime (an
/// instrumented shared library) counts as the program's, as the runtime's
/// stacks say (`+PATH`).
pub fn from_report(r: &crate::report::Report, program: &Path, symbolizer: Option<&Path>) -> Signature {
    let mut instrumented = std::collections::HashMap::new();
    let places: Vec<stack::Place> = r
        .frames
        .iter()
        .map(|p| {
            let module = if Path::new(&p.module) == program {
                "-".to_string()
            } else if *instrumented.entry(p.module.clone()).or_insert_with(|| carries_runtime(Path::new(&p.module))) {
                format!("+{}", p.module)
            } else {
                p.module.clone()
            };
            stack::Place { module, offset: p.offset }
        })
        .collect();
    let frames = crate::symbolize::frames(symbolizer, program, &places, false)
        .into_iter()
        .filter(|f| !is_sanitizer_frame(&f.function))
        .collect();
    Signature { kind: FailureKind::Sanitizer(r.kind.clone()), frames }
}

/// Whether the file at `path` carries the runtime (an instrumented module).
fn carries_runtime(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| memchr::memmem::find(&b, b"__carve_register_module").is_some())
}

/// A frame of a sanitizer's runtime, by its function's name.
fn is_sanitizer_frame(function: &str) -> bool {
    ["__asan", "__interceptor_", "__sanitizer", "__ubsan", "__lsan", "__interception"]
        .iter()
        .any(|p| function.starts_with(p))
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
