//! carve-clang as configure scripts and makefiles use it: every kind of
//! invocation, every -O level, and programs that behave as with plain clang.

mod suite;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn carve() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_carve-clang"))
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn run_in(dir: &Path, cc: &Path, args: &[&str]) -> Output {
    let o = Command::new(cc).current_dir(dir).args(args).output().unwrap();
    assert!(o.status.success(), "{} {args:?} failed: {}", cc.display(), String::from_utf8_lossy(&o.stderr));
    o
}

fn has_runtime() -> bool {
    let ok = carve().parent().unwrap().join("libcarve_rt.a").exists();
    assert!(ok, "libcarve_rt.a must be built next to carve-clang: run `scripts/build.sh` first");
    ok
}

fn copy_fixtures(dir: &Path) {
    for f in ["multi_a.c", "multi_b.c", "multi.h", "lib.c"] {
        std::fs::copy(fixtures().join(f), dir.join(f)).unwrap();
    }
}

#[test]
fn version_preprocess_and_dependency_only_pass_through() {
    let dir = tempfile::tempdir().unwrap();
    copy_fixtures(dir.path());
    let o = run_in(dir.path(), &carve(), &["--version"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("clang version 19"));
    let o = run_in(dir.path(), &carve(), &["-E", "multi_b.c"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("return x & 1 ? 7"));
    let o = run_in(dir.path(), &carve(), &["-MM", "multi_b.c"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("multi.h"));
}

#[test]
fn compile_then_link_with_dependency_files_like_automake() {
    assert!(has_runtime());
    let dir = tempfile::tempdir().unwrap();
    copy_fixtures(dir.path());
    let d = dir.path();
    run_in(
        d,
        &carve(),
        &["-O2", "-MT", "multi_b.o", "-MD", "-MP", "-MF", "deps.Tpo", "-c", "-o", "multi_b.o", "multi_b.c"],
    );
    let deps = std::fs::read_to_string(d.join("deps.Tpo")).unwrap();
    assert!(deps.starts_with("multi_b.o:") && deps.contains("multi.h"), "{deps}");
    // -MD without -MF or -MT: the .d file is named after the object, for the object.
    run_in(d, &carve(), &["-O2", "-MD", "-c", "multi_a.c"]);
    let deps = std::fs::read_to_string(d.join("multi_a.d")).unwrap();
    assert!(deps.starts_with("multi_a.o:"), "{deps}");
    run_in(d, &carve(), &["-O2", "-o", "prog", "multi_a.o", "multi_b.o"]);
    let out = Command::new(d.join("prog")).output().unwrap();
    assert!(out.status.success());
    let plain = plain_build(d, &["-O2"]);
    assert_eq!(out.stdout, Command::new(plain).output().unwrap().stdout);
}

fn plain_build(d: &Path, flags: &[&str]) -> PathBuf {
    let mut args = flags.to_vec();
    args.extend(["-o", "plain", "multi_a.c", "multi_b.c"]);
    run_in(d, Path::new("clang-19"), &args);
    d.join("plain")
}

#[test]
fn every_optimisation_level_behaves_like_plain_clang() {
    assert!(has_runtime());
    let dir = tempfile::tempdir().unwrap();
    copy_fixtures(dir.path());
    let d = dir.path();
    for level in ["-O0", "-O1", "-O2", "-O3", "-Os"] {
        // Several sources at once, compiled and linked in one command.
        run_in(d, &carve(), &[level, "-g", "-o", "prog", "multi_a.c", "multi_b.c"]);
        let plain = plain_build(d, &[level]);
        for args in [&[][..], &["a"][..], &["a", "b", "c"][..]] {
            let mine = Command::new(d.join("prog")).args(args).output().unwrap();
            let theirs = Command::new(&plain).args(args).output().unwrap();
            assert_eq!(mine.stdout, theirs.stdout, "{level} {args:?}");
            assert_eq!(mine.status.code(), theirs.status.code(), "{level} {args:?}");
        }
    }
}

#[test]
fn several_objects_at_once_assembly_and_language_flags() {
    let dir = tempfile::tempdir().unwrap();
    copy_fixtures(dir.path());
    let d = dir.path();
    run_in(d, &carve(), &["-c", "multi_a.c", "multi_b.c"]);
    assert!(d.join("multi_a.o").exists() && d.join("multi_b.o").exists());
    run_in(d, &carve(), &["-S", "-o", "b.s", "multi_b.c"]);
    assert!(std::fs::read_to_string(d.join("b.s")).unwrap().contains("helper"));
    std::fs::copy(d.join("multi_b.c"), d.join("conftest.txt")).unwrap();
    run_in(d, &carve(), &["-c", "-x", "c", "conftest.txt", "-o", "x.o"]);
    assert!(d.join("x.o").exists());
    // A compile error is clang's error, with clang's status.
    std::fs::write(d.join("bad.c"), "#error nope\n").unwrap();
    let o = Command::new(carve()).current_dir(d).args(["-c", "bad.c"]).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope"));
}

#[test]
fn shared_libraries_build_with_pic() {
    assert!(has_runtime());
    let dir = tempfile::tempdir().unwrap();
    copy_fixtures(dir.path());
    let d = dir.path();
    run_in(d, &carve(), &["-O2", "-fPIC", "-shared", "-o", "liblib.so", "lib.c"]);
    let o = Command::new("nm").args(["-D"]).arg(d.join("liblib.so")).output().unwrap();
    let syms = String::from_utf8_lossy(&o.stdout);
    // The library calls the runtime without a copy of its own: the
    // program's, or libcarve_rt.so's in a host built without carve-clang.
    assert!(syms.contains("T lib_twice") && syms.contains("U __carve_register_module"), "{syms}");
    let o = Command::new("readelf").args(["-d"]).arg(d.join("liblib.so")).output().unwrap();
    let dynamic = String::from_utf8_lossy(&o.stdout);
    assert!(dynamic.contains("[libcarve_rt.so]") && dynamic.contains("RUNPATH"), "{dynamic}");
    // It loads into a program built without carve-clang.
    std::fs::write(d.join("host.c"), "int lib_twice(int);\nint main(void) { return lib_twice(21) == 42 ? 0 : 1; }\n")
        .unwrap();
    run_in(d, Path::new("clang-19"), &["-o", "host", "host.c", "-L.", "-llib", "-Wl,-rpath,$ORIGIN"]);
    assert!(Command::new(d.join("host")).status().unwrap().success());
}

#[test]
fn conftest_style_link_runs_standalone() {
    assert!(has_runtime());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("conftest.c"), "int main(void) { return 0; }\n").unwrap();
    run_in(d, &carve(), &["-g", "-O2", "conftest.c", "-lm"]);
    let st = Command::new(d.join("a.out")).status().unwrap();
    assert!(st.success(), "a conftest program must run without bridge");
    // The runtime is `no_std`: it adds no library to the program's needs.
    let o = Command::new("ldd").arg(d.join("a.out")).output().unwrap();
    let libs = String::from_utf8_lossy(&o.stdout);
    assert!(!libs.contains("libgcc_s"), "{libs}");
}

/// Autoconf checks that a function links by declaring it `char f(void)`
/// and calling it without arguments: every libc function the symbolic
/// shadow models must survive that (a model reading an argument that is
/// not there stopped the compiler, and configure then took the function
/// to be missing).
#[test]
fn autoconf_function_checks_of_modelled_functions_build() {
    assert!(has_runtime());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Every libc function the passes know by name, once each.
    let names: std::collections::BTreeSet<&str> = model::abi::libc_functions().collect();
    assert!(names.len() > 100, "{names:?}");
    for f in names {
        // Compiled as autoconf's AC_CHECK_FUNCS writes it.
        let src = format!("char {f} (void);\nint main (void) {{ return {f} (); }}\n");
        std::fs::write(d.join("conftest.c"), src).unwrap();
        let o = Command::new(carve()).current_dir(d).args(["-O2", "-w", "-c", "conftest.c"]).output().unwrap();
        assert!(o.status.success(), "{f}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

/// A static variable `v` of a C function `f` is the symbol `f.v`: one
/// called `sym` or `carve` must not collide with the clones' names (sed's
/// configure has `static char const sym[]` in `main`; the build failed to
/// link and configure took the check to fail).
#[test]
fn static_locals_named_like_the_clones_build_and_run() {
    assert!(has_runtime());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = "static int f(int x) { static int carve = 3; static int sym = 4; return x * carve + sym; }\n\
               int main(int argc, char **argv) { static char const sym[] = \"s\"; static int carve;\n\
               (void)argv; carve = f(argc); return carve + sym[0] - 's'; }\n";
    std::fs::write(d.join("names.c"), src).unwrap();
    for level in ["-O0", "-O2"] {
        run_in(d, &carve(), &[level, "-o", "names", "names.c"]);
        let st = Command::new(d.join("names")).status().unwrap();
        assert_eq!(st.code(), Some(7), "{level}");
    }
}

#[test]
fn carve_clang_plus_plus_builds_cpp() {
    assert!(has_runtime());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cxx = d.join("carve-clang++");
    std::os::unix::fs::symlink(carve(), &cxx).unwrap();
    std::fs::write(
        d.join("hello.cc"),
        "#include <iostream>\n#include <map>\nint main(int argc, char**) { std::map<int,int> m; for (int i = 0; i < 10 * argc; i++) m[i % 7]++; std::cout << m.size() << \"\\n\"; }\n",
    )
    .unwrap();
    run_in(d, &cxx, &["-O2", "-o", "hello", "hello.cc"]);
    let o = Command::new(d.join("hello")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "7\n");
}
