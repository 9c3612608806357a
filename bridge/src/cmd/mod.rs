//! One module per subcommand.

pub mod carve;
pub mod exec;
pub mod fuzz_unit;
pub mod grammar;
pub mod provenance;
pub mod reduce;
pub mod replay;
pub mod review;
pub mod run;
pub mod showmap;
pub mod units;

use crate::cli::TargetArgs;
use std::time::Duration;

/// The `exec::Target` the flags describe.
pub fn target(args: &TargetArgs) -> anyhow::Result<::exec::Target> {
    let (program, rest) = args.command.split_first().ok_or_else(|| anyhow::anyhow!("no target given after --"))?;
    anyhow::ensure!(args.timeout_ms() > 0, "the timeout must be positive");
    say_how_it_runs(std::path::Path::new(program), rest, !args.no_contain, args.detect_leaks)?;
    let mut t = ::exec::Target::new(program, rest.to_vec());
    t.timeout = Duration::from_millis(args.timeout_ms());
    t.mem_limit_mb = (args.mem_limit_mb > 0).then_some(args.mem_limit_mb);
    t.show_output = args.show_output;
    t.args_in_input = args.args_in_input;
    t.contain = !args.no_contain;
    t.detect_leaks = args.detect_leaks;
    t.persistent = args.persistent;
    if let Some(at) = &args.input_at {
        eprintln!(
            "bridge: the target sees each input at {} too, in a mount namespace of its own (the machine's file is not touched)",
            at.display()
        );
        t.input_at = Some(at.clone());
    }
    Ok(t)
}

/// Says what runs in place of what was given: the program a libtool
/// wrapper runs (or why it cannot), a warning for other scripts, and the
/// arguments made absolute because runs happen in a scratch directory.
/// Nothing about a target's command line changes without a word here.
fn say_how_it_runs(
    program: &std::path::Path,
    args: &[String],
    contain: bool,
    detect_leaks: bool,
) -> anyhow::Result<()> {
    use ::exec::libtool::Script;
    let found = ::exec::forkserver::resolve(program).ok();
    match found.as_deref().and_then(::exec::libtool::script) {
        Some(Script::Libtool { program: real, library_path }) => eprintln!(
            "bridge: {} is libtool's wrapper script: running the program it wraps, {}, with LD_LIBRARY_PATH={library_path} before yours, as the wrapper would",
            program.display(),
            real.display()
        ),
        Some(Script::LibtoolUnbuilt { .. }) => {
            ::exec::libtool::unwrap(found.as_deref().unwrap_or(program))?;
        }
        Some(Script::Other { interpreter }) => eprintln!(
            "bridge: warning: {} is a script ({interpreter}), not a program: the fork server is whatever instrumented program it starts, and coverage is that program's; give the program itself if you can",
            program.display()
        ),
        None => {}
    }
    if let Some(p) = found.as_deref() {
        let real = ::exec::libtool::unwrap(p).map(|(p, _)| p).unwrap_or_else(|_| p.to_path_buf());
        let san = ::exec::sanitizer::detect(&real);
        // ASan's runtime carries UBSan's handlers: a program with both
        // looks like one with ASan alone.
        let name = if san.address { Some("AddressSanitizer") } else { san.undefined.then_some("UBSan") };
        if let Some(name) = name {
            eprintln!(
                "bridge: {} is built with {name}: a report ends its run (SIGABRT) and names the failure; leaks are {}looked for{}",
                program.display(),
                if detect_leaks { "" } else { "not " },
                if san.address { "; -m limits ASan's allocator, not the address space" } else { "" }
            );
        }
    }
    if contain {
        for (i, abs) in ::exec::path_args(args) {
            eprintln!(
                "bridge: argument '{}' names a file here; runs happen in a scratch directory, so the target gets {abs} (--no-contain runs here, arguments as given)",
                args[i]
            );
        }
    }
    Ok(())
}

/// The files of directory `dir` (not its subdirectories), sorted.
pub fn files_in(dir: &std::path::Path) -> anyhow::Result<Vec<std::path::PathBuf>> {
    Ok(driver::files::files_in(dir)?)
}

/// The test in `path`, or on standard input.
pub fn read_input(path: Option<&std::path::Path>) -> anyhow::Result<Vec<u8>> {
    use anyhow::Context;
    use std::io::Read;
    match path {
        Some(p) => std::fs::read(p).with_context(|| format!("cannot read input {}", p.display())),
        None => {
            let mut buf = Vec::new();
            std::io::stdin().read_to_end(&mut buf).context("cannot read standard input")?;
            Ok(buf)
        }
    }
}
