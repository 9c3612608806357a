//! A unit as the C a developer would write to reproduce the call: each
//! object as a byte array, pointers patched in, then the call.

use model::snapshot::*;
use model::unit::Unit;
use std::fmt::Write;

const KINDS: [&str; 7] = ["heap", "stack", "global", "argv", "stream", "descriptor", "locale"];

pub fn render_c(unit: &Unit) -> String {
    let s = &unit.snapshot;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* unit: {}() carved from {} */",
        s.name,
        if unit.meta.program.is_empty() { "?" } else { &unit.meta.program }
    );
    if s.truncated() {
        let _ = writeln!(out, "/* note: some objects were cut at the snapshot budget */");
    }
    if s.raw_pointers > 0 {
        let _ = writeln!(
            out,
            "/* note: {} pointer(s) to memory the runtime did not know are left as they were */",
            s.raw_pointers
        );
    }
    let _ = writeln!(out, "#include <stdint.h>\n#include <string.h>\n");
    for (i, (h, bytes)) in s.objects.iter().enumerate() {
        let kind = KINDS.get(h.kind as usize).copied().unwrap_or("?");
        if h.kind == OBJ_FD {
            let _ = writeln!(
                out,
                "/* descriptor {} open on {} at offset {} */",
                h.global & 0xff_ffff,
                String::from_utf8_lossy(bytes),
                h.addr
            );
            continue;
        }
        if h.kind == OBJ_LOCALE {
            let _ = writeln!(out, "/* setlocale(LC_ALL, \"{}\"); */", String::from_utf8_lossy(bytes));
            continue;
        }
        if h.kind == OBJ_STREAM {
            let _ = writeln!(out, "/* o{i}: a stream with {} bytes left to read */", bytes.len());
            continue;
        }
        if h.kind == OBJ_GLOBAL && h.len == 0 {
            let _ = writeln!(out, "/* o{i}: global #{} ({} bytes), as initialised */", h.global, h.size);
            continue;
        }
        let _ = writeln!(out, "static uint8_t o{i}[{}] = {{ /* {kind}{} */", h.size.max(1), text_of(bytes));
        for chunk in bytes.chunks(16) {
            let line: Vec<String> = chunk.iter().map(|b| format!("0x{b:02x}")).collect();
            let _ = writeln!(out, "    {},", line.join(", "));
        }
        let _ = writeln!(out, "}};");
    }
    let _ = writeln!(out, "\nint main(void) {{");
    for r in s.relocs.iter().filter(|r| r.object != RELOC_IN_ARG) {
        let _ = writeln!(out, "    {{ void *p = {}; memcpy(o{} + {}, &p, sizeof p); }}", target(r), r.object, r.offset);
    }
    let args: Vec<String> = s
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| match s.relocs.iter().find(|r| r.object == RELOC_IN_ARG && r.offset == i as u64) {
            Some(r) => target(r),
            None => match a.kind {
                ARG_PTR if a.value == 0 => "NULL".into(),
                ARG_PTR => format!("(void *)0x{:x} /* unknown memory */", a.value),
                ARG_F32 => format!("{}f", f32::from_bits(a.value as u32)),
                ARG_F64 => format!("{}", f64::from_bits(a.value)),
                _ => signed(a.value, a.size),
            },
        })
        .collect();
    let _ = write!(out, "    {}({});", s.name, args.join(", "));
    if let Some(o) = &unit.outcome {
        let _ = write!(out, " /* returned {} */", if o.returns_value { signed(o.ret, 8) } else { "nothing".into() });
    }
    let _ = writeln!(out, "\n    return 0;\n}}");
    out
}

fn target(r: &Reloc) -> String {
    match r.target_kind {
        RELOC_FUNCTION => format!("(void *)fn_{}", r.target),
        RELOC_THREAD => "(void *)pthread_self()".into(),
        RELOC_TID => "/* low half: */ gettid()".into(),
        _ if r.addend == 0 => format!("o{}", r.target),
        _ => format!("o{} + {}", r.target, r.addend),
    }
}

fn signed(v: u64, size: u8) -> String {
    match size {
        1 => (v as u8 as i8).to_string(),
        2 => (v as u16 as i16).to_string(),
        4 => (v as u32 as i32).to_string(),
        _ => (v as i64).to_string(),
    }
}

/// A printable view of bytes that look like text.
fn text_of(bytes: &[u8]) -> String {
    let shown: Vec<u8> = bytes.iter().take(40).copied().collect();
    if !shown.is_empty() && shown.iter().all(|&b| b == 0 || b.is_ascii_graphic() || b == b' ') {
        let s: String = shown.iter().take_while(|&&b| b != 0).map(|&b| b as char).collect();
        if !s.is_empty() {
            return format!(": \"{}\"", s.replace("*/", "*\\/"));
        }
    }
    String::new()
}
