//! Runs the steps of one `carve-clang` invocation.

use super::args::{Input, Invocation, Mode};
use super::watchdog::{self, Step, Watch};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the wrapped compiler and the runtime are.
#[derive(Debug, Clone)]
pub struct Toolchain {
    /// clang-19 (or clang++-19).
    pub cc: String,
    /// libcarve_rt.a
    pub runtime: PathBuf,
    /// Print every command.
    pub verbose: bool,
    /// Plain clang: no instrumentation, no runtime.
    pub plain: bool,
    /// Where to keep each source's bitcode at every step.
    pub save_temps: Option<PathBuf>,
    /// Each step's time limit, and a fault to inject.
    pub watch: Watch,
}

#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("cannot run {cc}: {err}")]
    Spawn { cc: String, err: std::io::Error },
    #[error("cannot create a temporary directory: {0}")]
    Temp(std::io::Error),
    #[error("runtime library not found at {0} (build it with `scripts/build.sh`, or set CARVE_RUNTIME)")]
    NoRuntime(PathBuf),
    #[error("instrumenting {source_path}: {err}")]
    Instrument { source_path: String, err: crate::Error },
    #[error("-o with several sources and -c or -S")]
    OutputWithManySources,
    #[error("-fsanitize={name} is not supported: {why} (address, undefined and its checks, and leak are)")]
    Sanitizer { name: String, why: &'static str },
}

/// Runs the invocation; returns the exit status to exit with.
pub fn run(inv: &Invocation, tc: &Toolchain) -> Result<i32, DriverError> {
    if tc.plain || inv.mode == Mode::PassThrough {
        return spawn(tc, &inv.args, None);
    }
    if let Some((name, why)) = inv.unsupported_sanitizer() {
        return Err(DriverError::Sanitizer { name: name.to_string(), why });
    }
    let tmp = tempfile::Builder::new().prefix("carve-clang").tempdir().map_err(DriverError::Temp)?;
    let sources: Vec<&Input> = inv.sources().collect();
    match inv.mode {
        Mode::Compile | Mode::Assemble => {
            let asm = inv.mode == Mode::Assemble;
            if inv.output.is_some() && sources.len() > 1 {
                return Err(DriverError::OutputWithManySources);
            }
            for (k, src) in sources.iter().enumerate() {
                let out = match &inv.output {
                    Some(o) => o.clone(),
                    None => default_output(&src.path, if asm { "s" } else { "o" }),
                };
                let status = compile_one(inv, tc, src, &out, asm, tmp.path(), k)?;
                if status != 0 {
                    return Ok(status);
                }
            }
            Ok(0)
        }
        Mode::Link => {
            let needed = if inv.shared { tc.runtime.with_file_name("libcarve_rt.so") } else { tc.runtime.clone() };
            if !needed.is_file() && !inv.no_runtime {
                return Err(DriverError::NoRuntime(needed));
            }
            let mut objects = Vec::new();
            for (k, src) in sources.iter().enumerate() {
                let obj = tmp.path().join(format!("{k}.o"));
                let status = compile_one(inv, tc, src, &obj.to_string_lossy(), false, tmp.path(), k)?;
                if status != 0 {
                    return Ok(status);
                }
                objects.push((src.pos, obj));
            }
            let out = inv.output.clone().unwrap_or_else(|| "a.out".into());
            spawn(tc, &link_args(inv, tc, &objects), Some((Step::Link, &out)))
        }
        Mode::PassThrough => unreachable!(),
    }
}

/// The link command: the original one with sources replaced by their
/// instrumented objects, plus the runtime.
fn link_args(inv: &Invocation, tc: &Toolchain, objects: &[(usize, PathBuf)]) -> Vec<String> {
    let mut args = Vec::new();
    let mut lang: Option<&str> = None;
    for (i, a) in inv.args.iter().enumerate() {
        if let Some((_, obj)) = objects.iter().find(|(pos, _)| *pos == i) {
            if lang.is_some() {
                args.push("-x".into());
                args.push("none".into());
                lang = None;
            }
            args.push(obj.to_string_lossy().into_owned());
            continue;
        }
        if let Some(input) = inv.inputs.iter().find(|x| x.pos == i) {
            // A non-source input keeps the language it had.
            if input.lang.as_deref() != lang {
                args.push("-x".into());
                args.push(input.lang.clone().unwrap_or_else(|| "none".into()));
                lang = input.lang.as_deref();
            }
        } else if a == "-x" || (i > 0 && inv.args[i - 1] == "-x") || (a.starts_with("-x") && a.len() > 2) {
            continue;
        }
        args.push(a.clone());
    }
    if !inv.no_runtime {
        if lang.is_some() {
            args.push("-x".into());
            args.push("none".into());
        }
        args.extend(runtime_link_args(inv, tc));
    }
    args
}

/// How a link gets the runtime: one runtime per process, however many
/// instrumented modules it loads.
///
/// - A program links the static runtime (`no_std`: it needs nothing beyond
///   libc) and exports its entry points, so that the instrumented shared
///   libraries it loads, at start or by `dlopen`, bind to them.
/// - A shared library links `libcarve_rt.so` (found through its RUNPATH):
///   its calls into the runtime stay undefined references, bound at load
///   time to the program's runtime when the program has one, or else to
///   `libcarve_rt.so` (an uninstrumented host). A static copy in each
///   library would give it a runtime of its own whenever its exports are
///   hidden (a version script's `local: *`), with its own map placement
///   and function table.
fn runtime_link_args(inv: &Invocation, tc: &Toolchain) -> Vec<String> {
    if inv.shared {
        let dir = tc.runtime.parent().unwrap_or(Path::new(".")).to_string_lossy().into_owned();
        return vec![format!("-L{dir}"), "-l:libcarve_rt.so".into(), format!("-Wl,-rpath,{dir}")];
    }
    let mut args = Vec::new();
    if inv.fuzzer {
        // Our `main` for a libFuzzer harness, before the runtime it calls.
        args.push(tc.runtime.with_file_name("libcarve_fuzzer.a").to_string_lossy().into_owned());
    }
    args.push(runtime_without_unwind(tc).to_string_lossy().into_owned());
    if !inv.static_link {
        for prefix in crate::abi::RUNTIME_PREFIXES {
            args.push(format!("-Wl,--export-dynamic-symbol={prefix}*"));
        }
    }
    args
}

/// Source -> bitcode (no LLVM passes) -> out-of-line copies and source
/// tags ([`crate::preserve`]) -> optimised bitcode (clang's optimiser at the
/// user's flags) -> instrumented bitcode -> object/assembly.
fn compile_one(
    inv: &Invocation,
    tc: &Toolchain,
    src: &Input,
    out: &str,
    asm: bool,
    tmp: &Path,
    k: usize,
) -> Result<i32, DriverError> {
    let bc = tmp.join(format!("{k}.bc"));
    let pre = tmp.join(format!("{k}.pre.bc"));
    let opt = tmp.join(format!("{k}.opt.bc"));
    let inst = tmp.join(format!("{k}.inst.bc"));
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let mut front = inv.common_flags(true);
    if inv.writes_deps {
        // The dependency file must name the real output, not our bitcode.
        if !inv.has_dep_target {
            front.extend(["-MT".into(), out.to_string()]);
        }
        if !inv.has_dep_file {
            front.extend(["-MF".into(), default_output(out, "d")]);
        }
    }
    // Link flags of a compile-and-link command mean nothing to this step.
    front.extend(["-Wno-unused-command-line-argument".into(), "-Xclang".into(), "-disable-llvm-passes".into()]);
    front.extend(["-c".into(), "-emit-llvm".into(), "-o".into(), path(&bc)]);
    if let Some(lang) = &src.lang {
        front.extend(["-x".into(), lang.clone()]);
    }
    front.push(src.path.clone());
    let file = src.path.as_str();
    let status = spawn(tc, &front, Some((Step::Front, file)))?;
    if status != 0 {
        return Ok(status);
    }
    {
        let _step = watchdog::enter(&tc.watch, Step::Copies, file);
        crate::prepare_file(&bc, &pre).map_err(|err| DriverError::Instrument { source_path: src.path.clone(), err })?;
    }
    let mut middle = inv.common_flags(false);
    middle.extend([
        "-Wno-unused-command-line-argument".into(),
        "-c".into(),
        "-emit-llvm".into(),
        "-x".into(),
        "ir".into(),
        path(&pre),
        "-o".into(),
        path(&opt),
    ]);
    let status = spawn(tc, &middle, Some((Step::Optimise, file)))?;
    if status != 0 {
        return Ok(status);
    }
    let stats = {
        let _step = watchdog::enter(&tc.watch, Step::Pass, file);
        let opts = crate::Options { library_entries: inv.pic };
        crate::instrument_file(&opt, &inst, &opts)
            .map_err(|err| DriverError::Instrument { source_path: src.path.clone(), err })?
    };
    if tc.verbose {
        eprintln!(
            "carve-clang: {}: {} functions, {} edges ({} branch outcomes)",
            src.path, stats.functions, stats.edges, stats.branches
        );
    }
    if let Some(dir) = &tc.save_temps {
        let stem = Path::new(&src.path).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        for (step, file) in [("front", &bc), ("copies", &pre), ("opt", &opt), ("inst", &inst)] {
            let _ = std::fs::copy(file, dir.join(format!("{stem}.{step}.bc")));
        }
    }
    let mut back = inv.common_flags(false);
    back.extend([
        "-Wno-unused-command-line-argument".into(),
        "-Xclang".into(),
        "-disable-llvm-passes".into(),
        if asm { "-S" } else { "-c" }.into(),
        "-x".into(),
        "ir".into(),
        path(&inst),
        "-o".into(),
        out.to_string(),
    ]);
    spawn(tc, &back, Some((Step::Back, file)))
}

/// clang's default output name: the source's file name with a new extension.
fn default_output(path: &str, ext: &str) -> String {
    let name = Path::new(path).file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = name.rsplit_once('.').map(|(s, _)| s.to_string()).unwrap_or(name);
    let dir = Path::new(path).parent().filter(|_| ext == "d").map(|d| d.to_path_buf()).unwrap_or_default();
    dir.join(format!("{stem}.{ext}")).to_string_lossy().into_owned()
}

/// Runs the wrapped clang; `step` (with the file it works on) puts it under
/// the watchdog. A clang ended by a signal is reported, with the step.
fn spawn(tc: &Toolchain, args: &[String], step: Option<(Step, &str)>) -> Result<i32, DriverError> {
    if tc.verbose {
        eprintln!("carve-clang: {} {}", tc.cc, args.join(" "));
    }
    let in_step = step.map(|(s, file)| watchdog::enter(&tc.watch, s, file));
    let mut child =
        Command::new(&tc.cc).args(args).spawn().map_err(|err| DriverError::Spawn { cc: tc.cc.clone(), err })?;
    if let Some(s) = &in_step {
        s.set_child(child.id());
    }
    let status = child.wait().map_err(|err| DriverError::Spawn { cc: tc.cc.clone(), err });
    // Leaving the step waits for the watchdog if it stopped the step.
    drop(in_step);
    let status = status?;
    if let (Some(sig), Some((s, file))) = (status.signal(), step) {
        eprintln!("carve-clang: error: {} ended by signal {sig} in {} of {file}", tc.cc, s.what());
    }
    Ok(status.code().unwrap_or(1))
}

/// The runtime archive with its (dead) references to `_Unwind_Resume`
/// renamed to `__carve_no_unwind`, made once next to the original with
/// objcopy; the original when that cannot be done (the program then also
/// links libgcc_s, and works the same).
fn runtime_without_unwind(tc: &Toolchain) -> PathBuf {
    let orig = &tc.runtime;
    let noeh = orig.with_file_name("libcarve_rt.noeh.a");
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(a), Some(b)) = (mtime(orig), mtime(&noeh)) {
        if b >= a {
            return noeh;
        }
    }
    let tmp = noeh.with_extension(format!("tmp{}", std::process::id()));
    for objcopy in ["llvm-objcopy-19", "objcopy"] {
        let ok = Command::new(objcopy)
            .args(["--redefine-sym", "_Unwind_Resume=__carve_no_unwind"])
            .arg(orig)
            .arg(&tmp)
            .status()
            .is_ok_and(|s| s.success());
        if ok && std::fs::rename(&tmp, &noeh).is_ok() {
            return noeh;
        }
        let _ = std::fs::remove_file(&tmp);
    }
    orig.clone()
}
