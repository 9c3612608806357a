//! `bridge`: the command line of the carving and bridging system.

mod campaign;
mod cli;
mod cmd;
mod input_file;
mod try_limit;
mod unit_loop;
mod unit_runner;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    warn_unknown_env();
    let result = match cli.command {
        cli::Command::Showmap(args) => cmd::showmap::run(args),
        cli::Command::Exec(args) => cmd::exec::run(args),
        cli::Command::Run(args) => cmd::run::run(args),
        cli::Command::Carve(args) => cmd::carve::run(args),
        cli::Command::Replay(args) => cmd::replay::run(args),
        cli::Command::Units(args) => cmd::units::list(args),
        cli::Command::Show(args) => cmd::units::show(args),
        cli::Command::FuzzUnit(args) => cmd::fuzz_unit::run(args),
        cli::Command::Explore(args) => cmd::fuzz_unit::explore(args),
        cli::Command::Review(args) => cmd::review::run(args),
        cli::Command::Reduce(args) => cmd::review::reduce(args),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("bridge: error: {e:#}");
            std::process::exit(1);
        }
    }
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
