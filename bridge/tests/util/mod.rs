//! Helpers of the end-to-end tests: the built tools, fixtures compiled with
//! carve-clang, and running `bridge`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The directory holding `bridge`, `carve-clang` and `libcarve_rt.a`.
pub fn tools_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_bridge")).parent().unwrap().to_path_buf()
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Compiles one C file with carve-clang into `out_dir`; panics with the
/// compiler's message on failure.
pub fn carve_compile(src: &Path, out_dir: &Path) -> PathBuf {
    carve_compile_with(src, out_dir, &[])
}

/// [`carve_compile`] with more flags (`-fsanitize=address`...).
pub fn carve_compile_with(src: &Path, out_dir: &Path, flags: &[&str]) -> PathBuf {
    let cc = tools_dir().join("carve-clang");
    assert!(
        cc.exists() && tools_dir().join("libcarve_rt.a").exists(),
        "carve-clang or the runtime is not built next to bridge ({}): run `scripts/build.sh` first",
        tools_dir().display()
    );
    let out = out_dir.join(src.file_stem().unwrap());
    let o = Command::new(&cc).arg("-O2").args(flags).arg("-o").arg(&out).arg(src).output().unwrap();
    assert!(o.status.success(), "carve-clang failed on {}: {}", src.display(), String::from_utf8_lossy(&o.stderr));
    out
}

/// An example program (examples/NAME/NAME.c) built with carve-clang.
pub fn example(name: &str, dir: &Path) -> PathBuf {
    carve_compile(&repo().join("examples").join(name).join(format!("{name}.c")), dir)
}

/// An example of several files (examples/NAME/*.c) built as a make-based
/// build does: each file compiled on its own (with carve-clang, or with
/// plain clang-19 for those named in `plain`), then linked by carve-clang.
pub fn example_by_parts(name: &str, dir: &Path, plain: &[&str]) -> PathBuf {
    let cc = tools_dir().join("carve-clang");
    let src = repo().join("examples").join(name);
    let mut objects = Vec::new();
    for e in std::fs::read_dir(&src).unwrap() {
        let c = e.unwrap().path();
        if c.extension().is_none_or(|x| x != "c") {
            continue;
        }
        let file = c.file_name().unwrap().to_str().unwrap().to_string();
        let o = dir.join(c.with_extension("o").file_name().unwrap());
        let compiler = if plain.contains(&file.as_str()) { PathBuf::from("clang-19") } else { cc.clone() };
        let out = Command::new(&compiler).args(["-O2", "-c", "-o"]).arg(&o).arg(&c).output().unwrap();
        assert!(
            out.status.success(),
            "{} failed on {file}: {}",
            compiler.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        objects.push(o);
    }
    let prog = dir.join(name);
    let out = Command::new(&cc).arg("-o").arg(&prog).args(&objects).output().unwrap();
    assert!(out.status.success(), "linking {name}: {}", String::from_utf8_lossy(&out.stderr));
    prog
}

/// Carves every function from a run of `prog` on `seed` (an example's
/// seed file, the `@@` file) into `dir/units`; the directory.
pub fn carve_all(prog: &Path, seed: &str, dir: &Path) -> PathBuf {
    let units = dir.join("units");
    let seed = std::fs::read(repo().join(seed)).unwrap();
    let o = bridge(&["carve", "-o", units.to_str().unwrap(), "--", prog.to_str().unwrap(), "@@"], &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    units
}

/// Carves `main` alone from a run of `prog` on `seed` (an example's seed
/// file, its first line the command line) into `dir/units`; the unit.
pub fn carve_main(prog: &Path, seed: &str, dir: &Path) -> PathBuf {
    let units = dir.join("units");
    let (u, p) = (units.to_str().unwrap(), prog.to_str().unwrap());
    let seed = std::fs::read(repo().join(seed)).unwrap();
    let o = bridge(&["carve", "--args-in-input", "-o", u, "--functions", "^main$", "--", p, "@@"], &seed);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let unit = units.join("main.0.unit");
    assert!(unit.exists(), "main is carved: {}", String::from_utf8_lossy(&o.stderr));
    unit
}

/// A copy of an example's seeds (examples/NAME/seeds) in `dir`.
pub fn seeds_of(example: &str, dir: &Path) -> PathBuf {
    let seeds = dir.join(format!("seeds-{example}"));
    std::fs::create_dir_all(&seeds).unwrap();
    for e in std::fs::read_dir(repo().join("examples").join(example).join("seeds")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, seeds.join(p.file_name().unwrap())).unwrap();
    }
    seeds
}

/// A fixture (bridge/tests/fixtures/NAME.c) built with carve-clang.
pub fn fixture(name: &str, dir: &Path) -> PathBuf {
    carve_compile(&repo().join("bridge/tests/fixtures").join(format!("{name}.c")), dir)
}

/// The names of the entries of `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// A campaign's `campaign.json`, parsed.
pub fn campaign_json(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("campaign.json")).unwrap()).unwrap()
}

/// Runs bridge with `args`, feeding `stdin`.
pub fn bridge(args: &[&str], stdin: &[u8]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_bridge"));
    c.args(args);
    run_fed(c, stdin)
}

/// Runs `c` (bridge with a directory or environment of its own), feeding
/// `stdin`; its output.
pub fn run_fed(mut c: Command, stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = c
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// Runs bridge with `args` (a `--json` command), feeding `stdin`; it must
/// succeed. The parsed output.
pub fn bridge_json(args: &[&str], stdin: &[u8]) -> serde_json::Value {
    let o = bridge(args, stdin);
    assert!(o.status.success(), "bridge {} failed: {}", args.join(" "), stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("bad JSON ({e}): {}", stdout(&o)))
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `bridge exec --json` over `corpus`; the parsed summary.
pub fn exec_json(corpus: &Path, extra: &[&str], cmd: &[&str]) -> serde_json::Value {
    let mut args = vec!["exec", "--json", "-c", corpus.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.push("--");
    args.extend_from_slice(cmd);
    let o = bridge(&args, b"");
    assert!(o.status.success(), "bridge exec failed: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("bad JSON ({e}): {}", stdout(&o)))
}

/// `main` of `prog` carved from a run on `input` (its `@@` file) into
/// `dir/units`; returns that directory.
pub fn carve_main_on(prog: &Path, input: &[u8], dir: &Path) -> String {
    let units = dir.join("units").to_str().unwrap().to_string();
    let o = bridge(&["carve", "-o", &units, "--functions", "^main$", "--", prog.to_str().unwrap(), "@@"], input);
    assert!(o.status.success(), "{}", stderr(&o));
    units
}
