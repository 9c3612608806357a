//! `bridge review --html DIR`: one self-contained page (no script, no
//! network, inline CSS and SVG). Every byte that came from a test or the
//! program is escaped: markup characters as entities, control bytes and
//! bytes that are not UTF-8 as `\xNN`, so a reproducer holding
//! `<script>`, NUL or ANSI escapes shows as text and does nothing.

use crate::table::Group;
use std::fmt::Write;

/// What the page shows of one signature, gathered by the caller.
pub struct Page<'a> {
    pub group: &'a Group,
    /// The first finding's bytes, and the reduced reproducer.
    pub original: Vec<u8>,
    pub reduced: Option<Vec<u8>>,
    /// The system test the unit was carved from (alarms), or the parent.
    pub parent: Option<Vec<u8>>,
    /// The unit as C, with the lifted value named (alarms).
    pub unit_c: Option<String>,
    /// Each telling frame's source line, when the file is readable.
    pub source: Vec<Option<String>>,
    /// The command that reproduces it on the program, FILE for the test.
    pub command: String,
    /// Its trail back to a seed: each test and the operators that made it
    /// (empty when unknown).
    pub trail: Vec<(String, String)>,
    /// The sanitizer's report of the first finding, when it ended in one.
    pub report: Option<String>,
}

/// Text for HTML: entities for markup, `\xNN` for control bytes and
/// invalid UTF-8 (newline and tab kept).
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '"' => out.push_str("&quot;"),
                '\'' => out.push_str("&#39;"),
                '\n' | '\t' => out.push(c),
                c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                    let _ = write!(out, "<span class=esc>\\x{:02x}</span>", c as u32);
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "<span class=esc>\\x{b:02x}</span>");
        }
    }
    out
}

fn is_binary(b: &[u8]) -> bool {
    std::str::from_utf8(b).is_err() || b.iter().any(|&c| c < 0x20 && c != b'\n' && c != b'\t' && c != b'\r')
}

/// A hex view (offset, 16 bytes, their printable characters).
fn hex(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (k, row) in bytes.chunks(16).enumerate() {
        let _ = write!(out, "{:08x}  ", k * 16);
        for b in row {
            let _ = write!(out, "{b:02x} ");
        }
        out.push_str(&"   ".repeat(16 - row.len()));
        let text: Vec<u8> = row.iter().map(|&b| if (0x20..0x7f).contains(&b) { b } else { b'.' }).collect();
        out.push(' ');
        out.push_str(&escape(&text));
        out.push('\n');
    }
    out
}

fn bytes_block(b: &[u8]) -> String {
    let mut s = format!("<pre>{}</pre>", escape(b));
    if is_binary(b) {
        let _ = write!(s, "<details><summary>hex</summary><pre>{}</pre></details>", hex(b));
    }
    s
}

/// A line diff of `from` to `to`, escaped, `-`/`+` lines marked.
fn diff(from: &[u8], to: &[u8]) -> String {
    let d = similar::TextDiff::from_lines(from, to);
    let mut out = String::from("<pre class=diff>");
    for change in d.iter_all_changes() {
        let (class, sign) = match change.tag() {
            similar::ChangeTag::Delete => ("del", '-'),
            similar::ChangeTag::Insert => ("ins", '+'),
            similar::ChangeTag::Equal => ("eq", ' '),
        };
        let text = change.value();
        let _ = write!(out, "<span class={class}>{sign} {}</span>", escape(text));
        if !text.ends_with(b"\n") {
            out.push('\n');
        }
    }
    out.push_str("</pre>");
    out
}

/// Branch coverage over time from `coverage.csv` (seconds, branch %), as
/// an inline SVG polyline.
fn coverage_svg(csv: &str) -> Option<String> {
    let mut head = csv.lines().next()?.split(',');
    let sec = head.clone().position(|h| h == "seconds")?;
    let pct = head.position(|h| h == "branch_pct")?;
    let points: Vec<(f64, f64)> = csv
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Some((f.get(sec)?.parse().ok()?, f.get(pct)?.parse().ok()?))
        })
        .collect();
    let t_max = points.iter().map(|p| p.0).fold(0.0, f64::max).max(1e-9);
    let (w, h) = (600.0, 200.0);
    let mut poly = String::new();
    for (t, p) in &points {
        let _ = write!(poly, "{:.1},{:.1} ", 40.0 + t / t_max * w, 10.0 + h - p / 100.0 * h);
    }
    Some(format!(
        "<svg xmlns='http://www.w3.org/2000/svg' width='660' height='240' role='img'>\
         <rect x='40' y='10' width='{w}' height='{h}' fill='none' stroke='#999'/>\
         <polyline fill='none' stroke='#1565c0' stroke-width='2' points='{poly}'/>\
         <text x='40' y='230' font-size='12'>0 s</text><text x='600' y='230' font-size='12'>{t_max:.0} s</text>\
         <text x='0' y='20' font-size='12'>100%</text><text x='10' y='210' font-size='12'>0%</text></svg>"
    ))
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}\
pre{background:#f6f6f6;padding:.5em;overflow-x:auto;white-space:pre-wrap}\
.esc{color:#b00;font-weight:bold}.del{color:#b00}.ins{color:#070}.eq{color:#555}\
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}";

/// Branch outcomes per function: name, covered, total.
pub type FunctionCoverage = [(String, u32, u32)];

/// The whole page.
/// A table of counts the caller gathered (what the seeds led to).
pub struct Table {
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

pub fn render(
    title: &str,
    pages: &[Page<'_>],
    coverage_csv: Option<&str>,
    functions: Option<&FunctionCoverage>,
    tables: &[Table],
) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html><html><head><meta charset='utf-8'>\
         <meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\
         <title>{}</title><style>{STYLE}</style></head><body><h1>{}</h1>",
        escape(title.as_bytes()),
        escape(title.as_bytes())
    );
    s.push_str(
        "<table><tr><th>#</th><th>kind</th><th>function</th><th>where</th><th>count</th><th>how it was found</th></tr>",
    );
    for (k, p) in pages.iter().enumerate() {
        let g = p.group;
        let top = g.signature.top();
        let place = top.and_then(|f| Some(format!("{}:{}", f.file.as_deref()?, f.line?))).unwrap_or_default();
        let _ = write!(
            s,
            "<tr><td><a href='#s{k}'>{k}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(g.signature.kind.to_string().as_bytes()),
            escape(top.map_or("?", |f| f.function.as_str()).as_bytes()),
            escape(place.as_bytes()),
            g.count(),
            escape(g.findings[0].how.as_bytes())
        );
    }
    s.push_str("</table>");
    if let Some(svg) = coverage_csv.and_then(coverage_svg) {
        let _ = write!(s, "<h2>Branch coverage over time</h2>{svg}");
    }
    for t in tables.iter().filter(|t| !t.rows.is_empty()) {
        let _ = write!(s, "<h2>{}</h2><table><tr>", escape(t.title.as_bytes()));
        for h in &t.header {
            let _ = write!(s, "<th>{}</th>", escape(h.as_bytes()));
        }
        s.push_str("</tr>");
        for r in &t.rows {
            s.push_str("<tr>");
            for c in r {
                let _ = write!(s, "<td>{}</td>", escape(c.as_bytes()));
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>");
    }
    if let Some(f) = functions.filter(|f| !f.is_empty()) {
        s.push_str("<h2>Branch outcomes per function (the queue's runs)</h2><table><tr><th>function</th><th>covered</th><th>of</th></tr>");
        for (name, covered, total) in f {
            let _ = write!(s, "<tr><td>{}</td><td>{covered}</td><td>{total}</td></tr>", escape(name.as_bytes()));
        }
        s.push_str("</table>");
    }
    for (k, p) in pages.iter().enumerate() {
        let g = p.group;
        let _ = write!(s, "<h2 id='s{k}'>{k}. {}</h2>", escape(g.key.as_bytes()));
        let first = &g.findings[0];
        let _ = write!(
            s,
            "<p>{} found; the first is <code>{}</code>, found by {}.</p>",
            g.count(),
            escape(first.path.as_bytes()),
            escape(first.how.as_bytes())
        );
        let _ = write!(s, "<h3>Reproduce</h3><pre>{}</pre>", escape(p.command.as_bytes()));
        if !p.trail.is_empty() {
            s.push_str("<h3>Where it came from</h3><ol>");
            for (test, made) in &p.trail {
                let _ = write!(s, "<li><code>{}</code> ({})</li>", escape(test.as_bytes()), escape(made.as_bytes()));
            }
            s.push_str("</ol>");
        }
        match &p.reduced {
            Some(r) => {
                let _ = write!(s, "<h3>Reduced reproducer ({} bytes)</h3>{}", r.len(), bytes_block(r));
                let _ = write!(s, "<h3>Reduced against the original</h3>{}", diff(&p.original, r));
            }
            None => {
                let _ = write!(s, "<h3>Reproducer ({} bytes)</h3>{}", p.original.len(), bytes_block(&p.original));
            }
        }
        if let Some(parent) = &p.parent {
            let _ = write!(s, "<h3>The original against the test it came from</h3>{}", diff(parent, &p.original));
        }
        s.push_str("<h3>Stack</h3><ol>");
        for (f, line) in g.signature.telling().iter().zip(p.source.iter().chain(std::iter::repeat(&None))) {
            let _ = write!(s, "<li><code>{}</code>", escape(f.place().as_bytes()));
            if let Some(l) = line {
                let _ = write!(s, "<pre>{}</pre>", escape(l.as_bytes()));
            }
            s.push_str("</li>");
        }
        s.push_str("</ol>");
        if let Some(r) = &p.report {
            let _ = write!(s, "<h3>The sanitizer's report</h3><pre>{}</pre>", escape(r.as_bytes()));
        }
        if let Some(c) = &p.unit_c {
            let _ = write!(s, "<h3>The unit, as C</h3><pre>{}</pre>", escape(c.as_bytes()));
        }
    }
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_bytes_become_text() {
        let e = escape(b"<script>alert(1)</script></textarea>\0\xff\x1b[31m&'\"");
        assert!(!e.contains("<script") && !e.contains("</textarea"), "{e}");
        assert!(e.contains("\\x00") && e.contains("\\xff") && e.contains("\\x1b"), "{e}");
        assert!(e.contains("&amp;") && e.contains("&#39;") && e.contains("&quot;"));
        assert!(is_binary(b"a\0b") && !is_binary(b"a\nb\t"));
        assert!(hex(b"AB\0").starts_with("00000000  41 42 00 "));
        let d = diff(b"a\nb\n", b"a\nc\n");
        assert!(d.contains("<span class=del>- b") && d.contains("<span class=ins>+ c"), "{d}");
        let svg = coverage_svg("seconds,branch_pct\n0,10\n2,50\n").unwrap();
        assert!(svg.contains("points='40.0,190.0 640.0,110.0 '"), "{svg}");
    }
}
