//! The symbolic models of libc's parsers and searches against glibc: a
//! harness built with carve-clang (bridge/tests/fixtures/libc_models.c)
//! runs one call on a record from stdin and pins each output; a symbolic
//! replay of its `main` on a random record gives each output's expression
//! and the call's branches. On mutants of the record that take the same
//! branches, each expression, evaluated, must be what glibc answers.

use crate::util::*;
use model::symtrace::{encode_sym_in, Trace};
use model::trace::*;
use std::path::Path;
use std::process::{Command, Stdio};

const REC: usize = 129;

/// xorshift64*: the test's randomness, seeded.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    fn text(&mut self, alphabet: &[u8], max: usize) -> Vec<u8> {
        let n = self.below(max + 1);
        (0..n).map(|_| *self.pick(alphabet)).collect()
    }
}

/// A record: parameters at 0, the input at 64.
fn record(params: &[u8], input: &[u8]) -> Vec<u8> {
    let mut r = vec![0u8; REC];
    r[..params.len().min(63)].copy_from_slice(&params[..params.len().min(63)]);
    r[64..64 + input.len().min(63)].copy_from_slice(&input[..input.len().min(63)]);
    r
}

const NUM: &[u8] = b"0123456789abcfxXzAF+- \t,:";
const WORDS: &[u8] = b"ab AB,:-\t09";
/// Bytes on both sides of 0x80, and the wide characters' parameters.
const WIDE: &[u8] = b"aZ \x7f\x80\xc3\xff.HE";
/// The ends of every character class, ASCII first (the last three are not).
const CLASSES: &[u8] = b"aAzZ09fgFG\t\x0b\r !/:@[`{~\x1f\x7f.\x80\xc3H";

/// A random record for `mode`, and the bytes a mutant may change.
fn case(mode: &str, r: &mut Rng) -> (Vec<u8>, &'static [u8], bool) {
    match mode {
        "sscanf" => {
            let specs = [
                "%d", "%3d", "%i", "%2i", "%u", "%x", "%lx", "%lu", "%lld", "%llu", "%hhd", "%hd", "%o", "%s", "%5s",
                "%c", "%3c", "%[a-z]", "%[^,]", "%2[0-9a]", "%*d", "%*s", "%n", ",", " ", ":", "%%",
            ];
            let mut fmt = String::new();
            for _ in 0..1 + r.below(4) {
                fmt.push_str(specs[r.below(specs.len())]);
                if r.below(2) == 0 {
                    fmt.push(*r.pick(&[' ', ',', ':']));
                }
            }
            let mut input = Vec::new();
            for _ in 0..r.below(5) {
                let tok: Vec<u8> = match r.below(4) {
                    0 => r.text(b"0123456789", 4),
                    1 => [r.text(b"+-", 1), b"0x".to_vec(), r.text(b"0123456789abcdefg", 3)].concat(),
                    2 => r.text(b"abcxyz", 5),
                    _ => r.text(b" ,:%", 2),
                };
                input.extend(tok);
                input.extend(r.text(b" ,:", 1));
            }
            (record(fmt.as_bytes(), &input), b"0123456789abcdefgxyz ,:%+-", false)
        }
        "strtol" | "strtoul" | "strtoll" | "strtoull" | "atoi" => {
            let any = 1 + r.below(36) as u8;
            let base = *r.pick(&[0u8, 0, 10, 16, 8, 2, 36, any]);
            let mut input = r.text(b" \t", 2);
            input.extend(r.text(b"+-", 1));
            if r.below(3) == 0 {
                input.extend(*r.pick(&[&b"0x"[..], b"0X", b"0"]));
            }
            input.extend(r.text(NUM, 8));
            (record(&[base], &input), NUM, false)
        }
        "strchr" | "strrchr" | "memchr" | "strchrnul" => {
            let input = r.text(WORDS, 12);
            let n = r.below(input.len() + 2) as u8;
            let c = *r.pick(WORDS);
            (record(&[c, n], &input), WORDS, true)
        }
        "strspn" | "strcspn" | "strpbrk" | "strtok" | "strtok_r" | "strsep" => {
            let mut set = vec![b'.'];
            set.extend(r.text(b"a ,:", 3));
            let input = r.text(WORDS, 14);
            (record(&set, &input), WORDS, true)
        }
        "strstr" => {
            let mut needle = vec![b'.'];
            needle.extend(r.text(b"ab", 3));
            let input = r.text(b"abA", 14);
            (record(&needle, &input), b"abA", true)
        }
        // In UTF-8 a byte past 0x7f starts a sequence that the model leaves
        // to the call: the records are ASCII, and a mutant that brings a
        // byte past 0x7f takes the other branch of the byte's class.
        "mbrtowc-utf8" | "mbrlen-utf8" => {
            let n = *r.pick(&[0u8, 1, 1, 2, 4]);
            (record(&[n], &r.text(b"aZ \x7f", 8)), WIDE, false)
        }
        "wctype" => {
            let mut high = vec![b'.'];
            high.extend((0..2).map(|_| *r.pick(b"..H")));
            (record(&high, &r.text(CLASSES, 6)), CLASSES, true)
        }
        "wctype-utf8" => (record(b"...", &r.text(&CLASSES[..CLASSES.len() - 3], 6)), CLASSES, true),
        "wcrtomb-utf8" | "wctob-utf8" | "btowc-utf8" => (record(b".....", &r.text(b"aZ \x7f", 8)), WIDE, true),
        "mbrtowc" | "mbrlen" => {
            let n = *r.pick(&[0u8, 1, 1, 2, 4]);
            (record(&[n], &r.text(WIDE, 8)), WIDE, false)
        }
        "wcrtomb" | "wctob" | "btowc" => {
            let mut high = vec![b'.'];
            high.extend((0..4).map(|_| *r.pick(b"..HE")));
            (record(&high, &r.text(WIDE, 8)), WIDE, true)
        }
        _ => {
            let mut a = vec![r.below(8) as u8];
            a.extend(r.text(b"aAbB", 5));
            let input = r.text(b"aAbB", 5);
            (record(&a, &input), b"aAbBc", true)
        }
    }
}

/// A mutant: one to three bytes changed in the input (and in the
/// parameters after their first byte, when they are symbolic data).
fn mutant(x: &[u8], alphabet: &[u8], params: bool, r: &mut Rng) -> Vec<u8> {
    let mut y = x.to_vec();
    let len = x[64..].iter().position(|&b| b == 0).unwrap_or(0);
    for _ in 0..1 + r.below(3) {
        let at = if params && r.below(3) == 0 {
            let plen = x[1..64].iter().position(|&b| b == 0).unwrap_or(0);
            1 + r.below(plen + 1)
        } else {
            64 + r.below((len + 2).min(62))
        };
        y[at] = *r.pick(alphabet);
    }
    y
}

/// Replays `main` of the harness symbolically on `x`: the trace.
fn replay(prog: &Path, unit: &Path, dir: &Path, x: &[u8]) -> Trace {
    let (spec, out, file) = (dir.join("sym.in"), dir.join("trace"), dir.join("rec"));
    let spec_in = SymInput { object: SYM_IN_FILE, offset: 0, len: REC as u32, first: 0 };
    std::fs::write(&spec, encode_sym_in(&[spec_in])).unwrap();
    std::fs::write(&file, x).unwrap();
    let _ = std::fs::remove_file(&out);
    let st = Command::new(prog)
        .env("CARVE_REPLAY", unit)
        .env("CARVE_SYM_IN", &spec)
        .env("CARVE_SYM_OUT", &out)
        .env("CARVE_SYM_FILE", "-")
        .stdin(std::fs::File::open(&file).unwrap())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success(), "replay failed");
    Trace::decode(&std::fs::read(&out).unwrap()).unwrap()
}

/// glibc's outputs on each record.
fn native(prog: &Path, mode: &str, records: &[Vec<u8>]) -> Vec<Vec<i64>> {
    let mut child =
        Command::new(prog).args([mode, "batch"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    {
        use std::io::Write;
        let mut i = child.stdin.take().unwrap();
        for r in records {
            i.write_all(r).unwrap();
        }
    }
    let o = child.wait_with_output().unwrap();
    String::from_utf8(o.stdout).unwrap().lines().map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect()).collect()
}

/// (mutants that took the seed's branches, of which agree, records whose
/// output was symbolic) over `cases` random records of `mode`.
fn agreement(prog: &Path, dir: &Path, mode: &str, cases: usize, r: &mut Rng) -> (usize, usize, usize) {
    let (seed, ..) = case(mode, r);
    let units = dir.join(format!("units-{mode}"));
    let o = bridge(
        &["carve", "-o", units.to_str().unwrap(), "--functions", "^main$", "--", prog.to_str().unwrap(), mode],
        &seed,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let unit = units.join("main.0.unit");
    let (mut held, mut agreed, mut symbolic) = (0, 0, 0);
    for _ in 0..cases {
        let (x, alphabet, params) = case(mode, r);
        let t = replay(prog, &unit, dir, &x);
        let pins: Vec<usize> = (0..t.path.len()).filter(|&k| t.path[k].kind == PATH_PIN).collect();
        let mut ys = vec![x.clone()];
        ys.extend((0..30).map(|_| mutant(&x, alphabet, params, r)));
        let glibc = native(prog, mode, &ys);
        let outs = glibc[0].len();
        if std::env::var_os("MODELS_VERBOSE").is_some() {
            eprintln!("{mode}: {} nodes, path {:?}", t.nodes.len(), t.path.iter().map(|e| e.kind).collect::<Vec<_>>());
        }
        assert!(pins.len() >= outs, "{mode}: every output is pinned");
        let (sinks, rest) = (&pins[pins.len() - outs..], pins[pins.len() - outs]);
        symbolic += usize::from(t.path[..rest].iter().any(|e| e.kind == PATH_BRANCH) || sinks.len() < t.path.len());
        for (y, want) in ys.iter().zip(&glibc) {
            let eval = |n: u32| unitgen::symbolic::evaluate(&t, n, y).expect("a node of at most 64 bits");
            let holds = t.path[..rest].iter().all(|e| {
                let v = eval(e.node);
                if e.kind == PATH_SWITCH {
                    v == e.taken
                } else {
                    v & 1 == e.taken
                }
            });
            if !holds {
                continue;
            }
            held += 1;
            let got: Vec<i64> = sinks
                .iter()
                .map(|&k| {
                    // The pin is `out + z == value`, `z` the record's last byte (0).
                    let eq = t.nodes[t.path[k].node as usize];
                    eval(eq.a) as i64
                })
                .collect();
            if got == *want {
                agreed += 1;
            } else if std::env::var_os("MODELS_VERBOSE").is_some() {
                eprintln!("{mode}: {:?} / {:?}: model {got:?}, glibc {want:?}", &y[..8], &y[64..72]);
                eprintln!("  seed {:?} / {:?}", &x[..8], &x[64..72]);
            }
        }
    }
    (held, agreed, symbolic)
}

#[test]
fn the_models_of_libc_parsers_agree_with_glibc_on_random_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let prog = carve_compile(&repo().join("bridge/tests/fixtures/libc_models.c"), dir.path());
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let cases: usize = std::env::var("MODELS_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(25);
    let modes = [
        "sscanf",
        "strtol",
        "strtoul",
        "strtoll",
        "strtoull",
        "atoi",
        "strchr",
        "strrchr",
        "memchr",
        "strchrnul",
        "strspn",
        "strcspn",
        "strpbrk",
        "strstr",
        "strcasecmp",
        "strncasecmp",
        "strtok",
        "strtok_r",
        "strsep",
        "mbrtowc",
        "mbrlen",
        "wcrtomb",
        "wctob",
        "btowc",
        "mbrtowc-utf8",
        "mbrlen-utf8",
        "wcrtomb-utf8",
        "wctob-utf8",
        "btowc-utf8",
        "wctype",
        "wctype-utf8",
    ];
    let mut report = Vec::new();
    for mode in modes {
        let (held, agreed, symbolic) = agreement(&prog, dir.path(), mode, cases, &mut r);
        report.push(format!("{mode}: {agreed}/{held} mutants agree ({symbolic}/{cases} records with branches)"));
        assert!(held >= cases, "{mode}: too few mutants keep the branches: {held}");
        if mode.contains("casecmp") {
            // As `strcmp`'s model, the chain covers the positions the call
            // compared and no branch keeps where it stopped: a mutant that
            // makes the compare go further is past it (the next run's chain
            // is longer).
            assert!(agreed * 10 >= held * 8, "{mode}: {}", report.join("\n"));
        } else {
            assert_eq!(agreed, held, "{mode}: {}", report.join("\n"));
        }
    }
    eprintln!("{}", report.join("\n"));
}
