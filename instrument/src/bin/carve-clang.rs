//! `carve-clang` / `carve-clang++`: drop-in replacements for clang-19 that
//! instrument every C/C++ translation unit and link the runtime.

use instrument::driver::{self, Fault, Invocation, Toolchain, Watch};
use model::env;
use std::path::PathBuf;
use std::time::Duration;

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
    let watch = match watch() {
        Ok(w) => w,
        Err(e) => {
            eprintln!("carve-clang: error: {e}");
            std::process::exit(2);
        }
    };
    let tc = Toolchain { cc, runtime, verbose: flag(env::DEBUG), plain: flag(env::NO_INSTRUMENT), save_temps, watch };
    let inv = Invocation::parse(&args);
    match driver::run(&inv, &tc) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("carve-clang: error: {e}");
            std::process::exit(1);
        }
    }
}

/// The step limit (`CARVE_CC_TIMEOUT`, seconds, `0` for none) and a fault
/// to inject (`CARVE_CC_FAULT`).
fn watch() -> Result<Watch, String> {
    let limit = match std::env::var(env::CC_TIMEOUT) {
        Err(_) => Some(driver::watchdog::DEFAULT_LIMIT),
        Ok(v) => match v.trim().parse::<f64>() {
            Ok(0.0) => None,
            Ok(s) if s > 0.0 && s.is_finite() => Some(Duration::from_secs_f64(s)),
            _ => return Err(format!("{}={v}: expected a number of seconds (0: no limit)", env::CC_TIMEOUT)),
        },
    };
    let fault = match std::env::var(env::CC_FAULT) {
        Err(_) => None,
        Ok(v) => Some(Fault::parse(&v).map_err(|e| format!("{}: {e}", env::CC_FAULT))?),
    };
    Ok(Watch { limit, fault })
}
