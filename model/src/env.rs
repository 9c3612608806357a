//! The one registry of environment variables shared by `carve-clang`, the
//! runtime and `bridge`. Every variable has the `CARVE_` prefix.

/// One registered variable: its name, who reads it, and what it does.
#[derive(Debug, Clone, Copy)]
pub struct EnvVar {
    pub name: &'static str,
    pub reader: &'static str,
    pub help: &'static str,
}

pub use crate::names::*;

/// Every variable, for documentation and for "did you mean" checks.
pub const ALL: &[EnvVar] = &[
    EnvVar { name: SHM_ID, reader: "runtime", help: "System V shared-memory id of the coverage map (set by bridge)" },
    EnvVar { name: FORKSRV, reader: "runtime", help: "1: run the fork server at main (set by bridge)" },
    EnvVar {
        name: DEFER,
        reader: "runtime",
        help: "1: in a host built without carve-clang, start nothing (fork server, carving) until the host calls __carve_start()",
    },
    EnvVar {
        name: PERSISTENT,
        reader: "runtime",
        help: "runs a harness's forked child makes before it exits (persistent mode; set by bridge; 1: one run per child)",
    },
    EnvVar {
        name: WHOLE_MAP,
        reader: "bridge",
        help: "1: clear and read the whole 64 KiB coverage map at every run, not only the part the target's modules use",
    },
    EnvVar { name: CC, reader: "carve-clang", help: "the C compiler to wrap (default clang-19)" },
    EnvVar { name: CXX, reader: "carve-clang++", help: "the C++ compiler to wrap (default clang++-19)" },
    EnvVar { name: RUNTIME, reader: "carve-clang", help: "path of libcarve_rt.a (default: next to carve-clang)" },
    EnvVar { name: DEBUG, reader: "carve-clang", help: "1: print every command carve-clang runs" },
    EnvVar { name: NO_INSTRUMENT, reader: "carve-clang", help: "1: compile without instrumentation" },
    EnvVar {
        name: SAVE_TEMPS,
        reader: "carve-clang",
        help: "directory to keep each source's bitcode at every step in (debugging the pass)",
    },
    EnvVar {
        name: CC_TIMEOUT,
        reader: "carve-clang",
        help: "seconds a step of carve-clang may take before it stops with an error naming it (default 900; 0: none)",
    },
    EnvVar {
        name: CC_FAULT,
        reader: "carve-clang",
        help: "hang:STEP or crash:STEP: spin or fault on entering a step (front, copies, optimise, pass, back, link), for tests",
    },
    EnvVar {
        name: ARGS_IN_INPUT,
        reader: "runtime",
        help: "1: a run's command line is its test file's first line, `@@` the rest (for afl-fuzz ... -- prog @@)",
    },
    EnvVar {
        name: RUN_AS,
        reader: "runtime",
        help: "UID:GID the fork server runs the target as (set by bridge as root)",
    },
    EnvVar {
        name: CARVE_DIR,
        reader: "runtime",
        help: "directory for snapshots of carved calls (set by bridge carve)",
    },
    EnvVar { name: CARVE_FUNCS, reader: "runtime", help: "comma-separated functions to carve (default: all)" },
    EnvVar { name: CARVE_MAX, reader: "runtime", help: "most snapshots per function (default 5)" },
    EnvVar { name: CARVE_BYTES, reader: "runtime", help: "byte budget of one snapshot (default 1 MiB)" },
    EnvVar {
        name: REPLAY,
        reader: "runtime",
        help: "unit file to replay instead of running main (set by bridge replay)",
    },
    EnvVar {
        name: REPLAY_PATCH,
        reader: "runtime",
        help: "patch of parameter values each replay applies (a unit fork server restores once)",
    },
    EnvVar {
        name: SYM_IN,
        reader: "runtime",
        help: "symbolic parameter bytes: the replay runs the symbolic clone (set by bridge explore)",
    },
    EnvVar { name: SYM_OUT, reader: "runtime", help: "where a symbolic replay writes its trace" },
    EnvVar {
        name: SYM_FILE,
        reader: "runtime",
        help: "the input file whose bytes a symbolic replay reads as symbolic (`-`: stdin)",
    },
    EnvVar { name: REPLAY_OUT, reader: "runtime", help: "where a replay writes the call's outcome" },
    EnvVar { name: LIST, reader: "runtime", help: "file to write the function table to, instead of running main" },
    EnvVar {
        name: STACK_OUT,
        reader: "runtime",
        help: "file the call stack of a crash (or of a hang, at SIGUSR2) goes to (set by bridge review)",
    },
    EnvVar {
        name: SYMBOLIZER,
        reader: "bridge",
        help: "the symbolizer bridge review names frames with (default llvm-symbolizer-19)",
    },
    EnvVar { name: RT_DEBUG, reader: "runtime", help: "1: the runtime reports what it does on stderr" },
    EnvVar {
        name: CACHE,
        reader: "scripts",
        help: "where scripts/subjects.sh keeps source packages and builds (default ~/.cache/carve-bridge)",
    },
    EnvVar { name: CLANG, reader: "scripts", help: "the carve-clang scripts/bench/compiler.sh sweeps" },
    EnvVar { name: SWEEP_LOG, reader: "scripts", help: "the compile log of scripts/bench/compiler.sh's logging compiler" },
];

/// Names in the environment that carry the prefix but are not registered,
/// each with the closest registered name when there is one.
pub fn unknown_vars<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<(String, Option<&'static str>)> {
    names
        .into_iter()
        .filter(|n| n.starts_with("CARVE_") && !ALL.iter().any(|v| v.name == *n))
        .map(|n| {
            let best = ALL
                .iter()
                .map(|v| (edit_distance(n, v.name), v.name))
                .min()
                .filter(|(d, _)| *d <= 3)
                .map(|(_, name)| name);
            (n.to_string(), best)
        })
        .collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_get_a_suggestion() {
        let found = unknown_vars(["CARVE_SHM_IDD", "CARVE_DEBUG", "PATH", "CARVE_ZZZZZZZZZZZ"]);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0], ("CARVE_SHM_IDD".to_string(), Some(SHM_ID)));
        assert_eq!(found[1].1, None);
    }
}
