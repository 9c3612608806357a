//! `carve-clang` / `carve-clang++`: drop-in replacements for clang-19 that
//! instrument every C/C++ translation unit and link the runtime.

use instrument::driver::{self, Invocation, Toolchain};
use model::env;
use std::path::PathBuf;

fn main() {
    let mut argv = std::env::args();
    let argv0 = argv.next().unwrap_or_default();
    let args: Vec<String> = argv.collect();
    let cxx = argv0.ends_with("++");
    let flag = |name: &str| std::env::var(name).is_ok_and(|v| v == "1");
    let cc = if cxx {
        std::env::var(env::CXX).unwrap_or_else(|_| "clang++-19".into())
    } else {
        std::env::var(env::CC).unwrap_or_else(|_| "clang-19".into())
    };
    let runtime = std::env::var_os(env::RUNTIME).map(PathBuf::from).unwrap_or_else(|| {
        let exe = std::env::current_exe().unwrap_or_default();
        exe.parent().unwrap_or(std::path::Path::new(".")).join("libcarve_rt.a")
    });
    let save_temps = std::env::var_os(env::SAVE_TEMPS).map(PathBuf::from);
    let tc = Toolchain { cc, runtime, verbose: flag(env::DEBUG), plain: flag(env::NO_INSTRUMENT), save_temps };
    let inv = Invocation::parse(&args);
    match driver::run(&inv, &tc) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("carve-clang: error: {e}");
            std::process::exit(1);
        }
    }
}
