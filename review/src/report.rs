//! A sanitizer's report, read: what went wrong (`heap-buffer-overflow
//! WRITE 1`, `signed-integer-overflow`) and the stack it was found at, as
//! AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer write
//! them without symbolizing (`#N 0xADDR  (MODULE+0xOFFSET)`).

use crate::stack::Place;

/// What a report says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The report's type, with the access and its size when the report
    /// gives them: `heap-buffer-overflow WRITE 1`.
    pub kind: String,
    /// The stack of the error, innermost first (the first stack of the
    /// report: not where the memory was allocated or freed).
    pub frames: Vec<Place>,
}

/// Reads a report; `None` when `text` holds none.
pub fn parse(text: &str) -> Option<Report> {
    let lines: Vec<&str> = text.lines().collect();
    let (start, mut kind) = lines.iter().enumerate().find_map(|(i, l)| error_kind(l).map(|k| (i, k)))?;
    if let Some(access) = lines[start..].iter().take(4).find_map(|l| access(l)) {
        kind = format!("{kind} {access}");
    }
    let frames = lines[start..]
        .iter()
        .skip_while(|l| !l.trim_start().starts_with("#0 "))
        .take_while(|l| l.trim_start().starts_with('#'))
        .filter_map(|l| frame(l))
        .collect();
    Some(Report { kind, frames })
}

/// The kind named by a report's first line, if `line` is one.
fn error_kind(line: &str) -> Option<String> {
    if let Some(rest) = line.split("ERROR: AddressSanitizer: ").nth(1) {
        let word = rest.split_whitespace().next()?.trim_end_matches(':');
        return Some(match word {
            "attempting" if rest.contains("double-free") => "double-free".into(),
            "attempting" => "bad-free".into(),
            "requested" => "allocation-size-too-big".into(),
            w => w.to_string(),
        });
    }
    if line.contains("ERROR: LeakSanitizer: detected memory leaks") {
        return Some("memory-leak".into());
    }
    let rest = line.split("runtime error: ").nth(1)?;
    Some(ubsan_kind(rest).to_string())
}

/// UBSan's check, named as `-fsanitize=` names it, from its message.
fn ubsan_kind(message: &str) -> &'static str {
    const KINDS: [(&str, &str); 16] = [
        ("signed integer overflow", "signed-integer-overflow"),
        ("negation of", "signed-integer-overflow"),
        ("unsigned integer overflow", "unsigned-integer-overflow"),
        ("division by zero", "integer-divide-by-zero"),
        ("division of", "signed-integer-overflow"),
        ("shift exponent", "shift-exponent"),
        ("left shift of", "shift-base"),
        ("out of bounds for type", "bounds"),
        ("null pointer", "null"),
        ("misaligned address", "alignment"),
        ("pointer overflow", "pointer-overflow"),
        ("non-zero offset", "pointer-overflow"),
        ("unreachable program point", "unreachable"),
        ("which is not a valid value for type", "invalid-value"),
        ("passed as argument", "nonnull-attribute"),
        ("implicit conversion", "implicit-conversion"),
    ];
    KINDS.iter().find(|(text, _)| message.contains(text)).map_or("undefined-behavior", |(_, k)| k)
}

/// `READ 4` from `READ of size 4 at 0x... thread T0`.
fn access(line: &str) -> Option<String> {
    let mut w = line.split_whitespace();
    let what = w.next().filter(|w| *w == "READ" || *w == "WRITE")?;
    (w.next()? == "of" && w.next()? == "size").then_some(())?;
    Some(format!("{what} {}", w.next()?))
}

/// `#3 0x55bed5518b20  (/tmp/p+0x30b20) (BuildId: ...)`: the module and
/// the offset; a frame the report names no module for is skipped.
fn frame(line: &str) -> Option<Place> {
    let open = line.find(" (")?;
    let inner = &line[open + 2..];
    let inner = &inner[..inner.find(')')?];
    let (module, offset) = inner.rsplit_once("+0x")?;
    Some(Place { module: module.to_string(), offset: u64::from_str_radix(offset, 16).ok()? })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASAN: &str = "=================================================================
==27391==ERROR: AddressSanitizer: heap-use-after-free on address 0x502000000014 at pc 0x5562a78583f7 bp 0x7ffdb7be3f30 sp 0x7ffdb7be3f28
READ of size 4 at 0x502000000014 thread T0
    #0 0x5562a78583f6  (/tmp/asan/ub2+0x1103f6) (BuildId: 190ea6791843179d040d6475ad71ec0ba6f391ca)
    #1 0x7fc3282ec249  (/lib/x86_64-linux-gnu/libc.so.6+0x27249) (BuildId: 93ac61ec5a8eb1396f9fbd350e3169a558528a40)

0x502000000014 is located 4 bytes inside of 16-byte region [0x502000000010,0x502000000020)
freed by thread T0 here:
    #0 0x5562a7817b03  (/tmp/asan/ub2+0xcfb03) (BuildId: 190ea6791843179d040d6475ad71ec0ba6f391ca)

SUMMARY: AddressSanitizer: heap-use-after-free (/tmp/asan/ub2+0x1103f6) (BuildId: 190ea6791843179d040d6475ad71ec0ba6f391ca)
==27391==ABORTING
";

    const UBSAN: &str =
        "ub2.c:3:36: runtime error: signed integer overflow: 5 * 1073741824 cannot be represented in type 'int'
    #0 0x55bed55f8409  (/tmp/asan/ub2+0x110409) (BuildId: 190ea6791843179d040d6475ad71ec0ba6f391ca)
    #1 0x7f12cf39d249  (/lib/x86_64-linux-gnu/libc.so.6+0x27249) (BuildId: 93ac61ec5a8eb1396f9fbd350e3169a558528a40)

SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior ub2.c:3:36
";

    #[test]
    fn asan_reports_give_kind_access_and_the_errors_stack() {
        let r = parse(ASAN).unwrap();
        assert_eq!(r.kind, "heap-use-after-free READ 4");
        let want = [("/tmp/asan/ub2", 0x1103f6), ("/lib/x86_64-linux-gnu/libc.so.6", 0x27249)];
        assert_eq!(r.frames.iter().map(|p| (p.module.as_str(), p.offset)).collect::<Vec<_>>(), want);
    }

    #[test]
    fn ubsan_reports_name_the_check() {
        let r = parse(UBSAN).unwrap();
        assert_eq!(r.kind, "signed-integer-overflow");
        assert_eq!(r.frames.len(), 2);
        assert_eq!(parse("x.c:1:2: runtime error: division by zero\n").unwrap().kind, "integer-divide-by-zero");
        let shift = "a.c:9:3: runtime error: shift exponent 40 is too large for 32-bit type 'int'";
        assert_eq!(parse(shift).unwrap().kind, "shift-exponent");
        assert_eq!(parse("a.c:1:1: runtime error: something new\n").unwrap().kind, "undefined-behavior");
    }

    #[test]
    fn other_reports_and_no_report() {
        let df =
            "==1==ERROR: AddressSanitizer: attempting double-free on 0x6020 in thread T0:\n    #0 0x1  (/p+0x10)\n";
        assert_eq!(parse(df).unwrap().kind, "double-free");
        let so = "==1==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x7ff at pc 0x1 bp 0x2 sp 0x3\nWRITE of size 1 at 0x7ff thread T0\n";
        assert_eq!(parse(so).unwrap().kind, "stack-buffer-overflow WRITE 1");
        assert!(parse("==1==ERROR: LeakSanitizer: detected memory leaks\n").unwrap().kind == "memory-leak");
        assert_eq!(parse("hello\nworld\n"), None);
        assert_eq!(parse(""), None);
    }
}
