//! Classification of a clang command line: what it does, which inputs are
//! sources we instrument, which flags are what.

/// What the command line asks clang to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `-E`, `-M`/`-MM` without `-MD`, `-fsyntax-only`, `-###`, or no input.
    PassThrough,
    /// `-c`: objects.
    Compile,
    /// `-S`: assembly.
    Assemble,
    /// No stop flag: compile what needs compiling, then link.
    Link,
}

/// One input of the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Index in `Invocation::args`.
    pub pos: usize,
    pub path: String,
    /// The `-x` language in force for it, if any.
    pub lang: Option<String>,
    /// Whether we instrument it (C or C++ source).
    pub is_source: bool,
}

/// A parsed command line (without argv[0]).
#[derive(Debug, Clone)]
pub struct Invocation {
    pub args: Vec<String>,
    pub mode: Mode,
    pub inputs: Vec<Input>,
    /// Index of the value of `-o` (or of the joined `-oFILE`).
    pub output: Option<String>,
    /// Positions of arguments that are flags the per-source steps drop:
    /// `-c`, `-S`, `-o X`, `-x L`, and inputs.
    pub dropped: Vec<bool>,
    /// Positions of dependency-file flags (`-MD -MF x -MT y ...`).
    pub dep_flags: Vec<bool>,
    pub writes_deps: bool,
    pub has_dep_file: bool,
    pub has_dep_target: bool,
    /// A link that must not get the runtime (`-r`, `-nostdlib`, ...).
    pub no_runtime: bool,
    /// `-shared`: a shared library, which gets the runtime as a shared
    /// library too (one runtime per process, see `compile::link_args`).
    pub shared: bool,
    /// `-static` or `-static-pie`: nothing is exported dynamically.
    pub static_link: bool,
    /// `-fPIC` or `-fpic` (last of them and their `-fno-` forms): code for
    /// a shared library.
    pub pic: bool,
    /// The sanitizers `-fsanitize=` asks for (net of `-fno-sanitize=`), in
    /// the order first named.
    pub sanitizers: Vec<String>,
    /// `-fsanitize=fuzzer`: a libFuzzer harness, linked with our driver
    /// (`runtime/fuzzer/driver.c`) instead of libFuzzer. `fuzzer` and
    /// `fuzzer-no-link` are taken out of the flags clang sees: their
    /// coverage instrumentation is not ours.
    pub fuzzer: bool,
}

/// Flags that take the next argument as their value.
const WITH_VALUE: &[&str] = &[
    "-o",
    "-x",
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "--sysroot",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-L",
    "-l",
    "-T",
    "-u",
    "-e",
    "-z",
    "-Xclang",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-arch",
    "-target",
    "-mllvm",
    "-serialize-diagnostics",
    "-aux-info",
    "-ivfsoverlay",
    "-working-directory",
    "-b",
    "-V",
    "-G",
    "-A",
];

const SOURCE_EXTS: &[&str] = &["c", "i", "cc", "cp", "cxx", "cpp", "c++", "C", "ii", "CC", "CPP"];
const SOURCE_LANGS: &[&str] = &["c", "c++", "cpp-output", "c++-cpp-output", "c-cpp-output"];

impl Invocation {
    pub fn parse(args: &[String]) -> Invocation {
        let n = args.len();
        let mut inv = Invocation {
            args: args.to_vec(),
            mode: Mode::Link,
            inputs: Vec::new(),
            output: None,
            dropped: vec![false; n],
            dep_flags: vec![false; n],
            writes_deps: false,
            has_dep_file: false,
            has_dep_target: false,
            no_runtime: false,
            shared: false,
            static_link: false,
            pic: false,
            sanitizers: Vec::new(),
            fuzzer: false,
        };
        let (mut compile, mut assemble, mut pass) = (false, false, false);
        let (mut dep_only, mut lang): (bool, Option<String>) = (false, None);
        let mut i = 0;
        while i < n {
            let a = args[i].as_str();
            let value = |j: usize| args.get(j).cloned().unwrap_or_default();
            match a {
                "-c" => (compile, inv.dropped[i]) = (true, true),
                "-S" => (assemble, inv.dropped[i]) = (true, true),
                "-E" | "-fsyntax-only" | "-###" | "-emit-llvm" | "-emit-ast" | "--precompile" => pass = true,
                "-M" | "-MM" => dep_only = true,
                "-MD" | "-MMD" => {
                    inv.writes_deps = true;
                    inv.dep_flags[i] = true;
                }
                "-MP" | "-MG" => inv.dep_flags[i] = true,
                "-r" | "-nostdlib" | "-nodefaultlibs" | "-nostartfiles" => inv.no_runtime = true,
                "-shared" => inv.shared = true,
                _ if a.starts_with("-fsanitize=") => {
                    for s in a["-fsanitize=".len()..].split(',').filter(|s| !s.is_empty()) {
                        if !inv.sanitizers.iter().any(|x| x == s) {
                            inv.sanitizers.push(s.to_string());
                        }
                    }
                }
                _ if a.starts_with("-fno-sanitize=") => {
                    let off: Vec<&str> = a["-fno-sanitize=".len()..].split(',').collect();
                    inv.sanitizers.retain(|s| !off.contains(&s.as_str()) && !off.contains(&"all"));
                }
                "-static" | "-static-pie" => inv.static_link = true,
                "-fPIC" | "-fpic" => inv.pic = true,
                "-fno-PIC" | "-fno-pic" => inv.pic = false,
                "-" => inv.inputs.push(Input { pos: i, path: a.into(), lang: lang.clone(), is_source: false }),
                _ if a == "-o" => {
                    inv.output = Some(value(i + 1));
                    inv.dropped[i] = true;
                    if i + 1 < n {
                        inv.dropped[i + 1] = true;
                    }
                    i += 1;
                }
                _ if a == "-x" => {
                    let l = value(i + 1);
                    lang = (l != "none").then_some(l);
                    inv.dropped[i] = true;
                    if i + 1 < n {
                        inv.dropped[i + 1] = true;
                    }
                    i += 1;
                }
                _ if a == "-MF" || a == "-MT" || a == "-MQ" => {
                    inv.has_dep_file |= a == "-MF";
                    inv.has_dep_target |= a != "-MF";
                    inv.dep_flags[i] = true;
                    if i + 1 < n {
                        inv.dep_flags[i + 1] = true;
                    }
                    i += 1;
                }
                _ if a.starts_with("-MF") || a.starts_with("-MT") || a.starts_with("-MQ") => {
                    inv.has_dep_file |= a.starts_with("-MF");
                    inv.has_dep_target |= !a.starts_with("-MF");
                    inv.dep_flags[i] = true;
                }
                _ if a.starts_with("-o") && a.len() > 2 => {
                    inv.output = Some(a[2..].to_string());
                    inv.dropped[i] = true;
                }
                _ if a.starts_with("-x") && a.len() > 2 => {
                    let l = &a[2..];
                    lang = (l != "none").then(|| l.to_string());
                    inv.dropped[i] = true;
                }
                _ if WITH_VALUE.contains(&a) => i += 1,
                _ if a.starts_with('-') => {}
                _ => {
                    let is_source = match &lang {
                        Some(l) => SOURCE_LANGS.contains(&l.as_str()),
                        None => a.rsplit_once('.').is_some_and(|(_, ext)| SOURCE_EXTS.contains(&ext)),
                    };
                    inv.inputs.push(Input { pos: i, path: a.into(), lang: lang.clone(), is_source });
                    inv.dropped[i] = true;
                }
            }
            i += 1;
        }
        inv.take_out_fuzzer();
        // ASan keeps a function's locals in one block of its frame, which
        // carving records, unless it may move them to its fake stack at run
        // time (use after return), which no probe sees.
        if inv.sanitizers.iter().any(|s| s == "address")
            && !inv.args.iter().any(|a| a.starts_with("-fsanitize-address-use-after-return="))
        {
            inv.args.push("-fsanitize-address-use-after-return=never".into());
            inv.dropped.push(false);
            inv.dep_flags.push(false);
        }
        if dep_only && !inv.writes_deps {
            pass = true;
        }
        inv.mode = if pass || inv.inputs.is_empty() || !inv.inputs.iter().any(|i| i.is_source) && (compile || assemble)
        {
            Mode::PassThrough
        } else if compile {
            Mode::Compile
        } else if assemble {
            Mode::Assemble
        } else {
            Mode::Link
        };
        inv
    }

    /// Takes `fuzzer` and `fuzzer-no-link` out of every `-fsanitize=` (a
    /// flag left with nothing becomes a harmless one, so that positions
    /// stay), noting whether `fuzzer` was asked for.
    fn take_out_fuzzer(&mut self) {
        self.fuzzer = self.sanitizers.iter().any(|s| s == "fuzzer");
        self.sanitizers.retain(|s| s != "fuzzer" && s != "fuzzer-no-link");
        for a in &mut self.args {
            let Some(list) = a.strip_prefix("-fsanitize=") else { continue };
            let kept: Vec<&str> = list.split(',').filter(|s| *s != "fuzzer" && *s != "fuzzer-no-link").collect();
            if kept.len() != list.split(',').count() {
                *a = if kept.is_empty() {
                    "-Wno-unused-command-line-argument".to_string()
                } else {
                    format!("-fsanitize={}", kept.join(","))
                };
            }
        }
    }

    /// The first sanitizer asked for that carve-clang does not support,
    /// with why; `None` when every one is supported (ASan, UBSan and its
    /// checks, LeakSanitizer, the fuzzer driver).
    pub fn unsupported_sanitizer(&self) -> Option<(&str, &'static str)> {
        self.sanitizers.iter().find_map(|s| {
            let why = match s.as_str() {
                "memory" | "kernel-memory" => {
                    "MemorySanitizer needs every byte a program reads to come from instrumented code; the runtime's are not"
                }
                "thread" => "ThreadSanitizer is not tested with the runtime and its fork server",
                "hwaddress" | "kernel-hwaddress" | "kernel-address" => "only the userspace AddressSanitizer is supported",
                "dataflow" | "safe-stack" | "shadow-call-stack" | "scudo" | "numerical" | "realtime" | "type" => {
                    "not supported by carve-clang"
                }
                s if s.starts_with("cfi") || s.starts_with("memtag") => "not supported by carve-clang",
                _ => return None,
            };
            Some((s.as_str(), why))
        })
    }

    /// Flags common to every per-source step: everything but inputs, `-c`,
    /// `-S`, `-o`, `-x` (and dependency flags unless `keep_deps`).
    pub fn common_flags(&self, keep_deps: bool) -> Vec<String> {
        (0..self.args.len())
            .filter(|&i| !self.dropped[i] && (keep_deps || !self.dep_flags[i]))
            .map(|i| self.args[i].clone())
            .collect()
    }

    pub fn sources(&self) -> impl Iterator<Item = &Input> {
        self.inputs.iter().filter(|i| i.is_source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Invocation {
        Invocation::parse(&s.split_whitespace().map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn classifies_what_configure_throws() {
        assert_eq!(parse("--version").mode, Mode::PassThrough);
        assert_eq!(parse("-E conftest.c").mode, Mode::PassThrough);
        assert_eq!(parse("-M a.c").mode, Mode::PassThrough);
        assert_eq!(parse("-c -MD -MF a.d a.c").mode, Mode::Compile);
        assert_eq!(parse("-c foo.s").mode, Mode::PassThrough);
        assert_eq!(parse("-O2 conftest.c -o conftest -lm").mode, Mode::Link);
        assert_eq!(parse("-S -o a.s a.c").mode, Mode::Assemble);
        let inv = parse("-c -x c conftest.txt -o x.o");
        assert!(inv.inputs[0].is_source);
        assert_eq!(inv.output.as_deref(), Some("x.o"));
        assert_eq!(inv.common_flags(false), Vec::<String>::new());
    }

    #[test]
    fn keeps_flag_values_out_of_inputs() {
        let inv = parse("-I inc -D X=1 -c a.c b.cc -include cfg.h -MT a.o -MD");
        let paths: Vec<_> = inv.inputs.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(paths, ["a.c", "b.cc"]);
        assert!(inv.writes_deps && inv.has_dep_target && !inv.has_dep_file);
        assert_eq!(inv.common_flags(false), ["-I", "inc", "-D", "X=1", "-include", "cfg.h"]);
    }

    #[test]
    fn sanitizers_are_read_and_the_unsupported_named() {
        let inv = parse("-fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=address -c a.c");
        assert_eq!(inv.sanitizers, ["address", "undefined"]);
        assert_eq!(inv.unsupported_sanitizer(), None);
        let inv = parse("-fsanitize=undefined,memory -c a.c");
        assert_eq!(inv.unsupported_sanitizer().map(|(s, _)| s), Some("memory"));
        assert_eq!(parse("-fsanitize=thread -fno-sanitize=thread -c a.c").unsupported_sanitizer(), None);
        assert_eq!(parse("-fsanitize=cfi-icall a.c").unsupported_sanitizer().map(|(s, _)| s), Some("cfi-icall"));
        assert!(parse("-fsanitize=fuzzer,address a.c").unsupported_sanitizer().is_none());
    }

    #[test]
    fn the_fuzzer_is_ours_and_clang_never_sees_it() {
        let inv = parse("-fsanitize=fuzzer,address -O1 h.c -o h");
        assert!(inv.fuzzer);
        assert_eq!(inv.sanitizers, ["address"]);
        assert!(inv.args.contains(&"-fsanitize=address".to_string()) && inv.inputs[0].path == "h.c", "{:?}", inv.args);
        let inv = parse("-fsanitize=fuzzer-no-link -c lib.c");
        assert!(!inv.fuzzer && !inv.args.iter().any(|a| a.contains("fuzzer")), "{:?}", inv.args);
        assert_eq!(inv.mode, Mode::Compile);
    }

    #[test]
    fn links_know_when_not_to_add_the_runtime() {
        assert!(!parse("-shared -fPIC a.c -o liba.so").no_runtime);
        assert!(parse("-shared -fPIC a.c -o liba.so").shared);
        assert!(parse("-static a.c").static_link && !parse("a.c").static_link);
        assert!(parse("-r a.o b.o -o ab.o").no_runtime);
        assert!(!parse("a.o b.o -o prog").no_runtime);
        assert_eq!(parse("a.o b.o -o prog").mode, Mode::Link);
    }
}
