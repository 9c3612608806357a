//! `bridge`: the command line of the carving and bridging system.

mod affinity;
mod cli;
mod cmd;

use clap::Parser;

fn main() {
    quiet_on_closed_pipe();
    let cli = cli::Cli::parse();
    warn_unknown_env();
    if let Err(e) = args_in_input_env(&cli.command) {
        eprintln!("bridge: error: {e}");
        std::process::exit(2);
    }
    let result = match cli.command {
        cli::Command::Showmap(args) => cmd::showmap::run(args),
        cli::Command::Exec(args) => cmd::exec::run(args),
        cli::Command::Run(args) => cmd::run::run(*args),
        cli::Command::Carve(args) => cmd::carve::run(args),
        cli::Command::Replay(args) => cmd::replay::run(args),
        cli::Command::Units(args) => cmd::units::list(args),
        cli::Command::Show(args) => cmd::units::show(args),
        cli::Command::FuzzUnit(args) => cmd::fuzz_unit::run(args),
        cli::Command::Explore(args) => cmd::fuzz_unit::explore(args),
        cli::Command::Review(args) => cmd::review::run(args),
        cli::Command::Reduce(args) => cmd::reduce::reduce(args),
        cli::Command::Signature(args) => cmd::reduce::signature_of(args),
        cli::Command::Provenance(args) => cmd::provenance::run(args),
        cli::Command::Grammar(args) => cmd::grammar::run(args),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("bridge: error: {e:#}");
            std::process::exit(1);
        }
    }
}

/// `CARVE_ARGS_IN_INPUT=1` is for targets AFL++ runs; the bridge's own
/// runs say where the command line is by `--args-in-input`, so the
/// variable is taken out of the environment its targets inherit. A sync
/// campaign beside AFL++ instances that read command lines from their
/// tests must read them too.
fn args_in_input_env(command: &cli::Command) -> Result<(), String> {
    let Some(v) = std::env::var_os(model::env::ARGS_IN_INPUT) else { return Ok(()) };
    if let cli::Command::Run(r) = command {
        if r.sync.is_some() && !r.target.args_in_input && v == "1" {
            return Err(format!(
                "{}=1 is set: AFL++ instances that run with it read a test's first line as its command line; \
                 give --args-in-input so that this instance reads it so too (or unset it)",
                model::env::ARGS_IN_INPUT
            ));
        }
    }
    // Single-threaded still: nothing reads the environment meanwhile.
    std::env::remove_var(model::env::ARGS_IN_INPUT);
    Ok(())
}

/// A `CARVE_` variable nobody reads is most likely a typo.
fn warn_unknown_env() {
    let names: Vec<String> = std::env::vars_os().filter_map(|(k, _)| k.into_string().ok()).collect();
    for (name, best) in model::env::unknown_vars(names.iter().map(String::as_str)) {
        match best {
            Some(b) => eprintln!("bridge: warning: unknown variable {name} (did you mean {b}?)"),
            None => eprintln!("bridge: warning: unknown variable {name}"),
        }
    }
}

/// A reader that stops reading (`bridge units DIR | head`) ends the
/// command as it ends a C tool, by SIGPIPE, without a message: printing
/// panics on a closed standard output, and this hook runs first. (SIGPIPE
/// itself stays ignored, so a target's closed pipe is an error to handle.)
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info.payload().downcast_ref::<String>().map(String::as_str).unwrap_or("");
        if text.contains("failed printing to stdout") && text.contains("Broken pipe") {
            // SAFETY: restoring the default action and raising it ends us.
            unsafe {
                libc::signal(libc::SIGPIPE, libc::SIG_DFL);
                libc::raise(libc::SIGPIPE);
            }
            std::process::exit(141);
        }
        default(info);
    }));
}
