//! Failures grouped by signature, and the table `bridge review` prints.

use model::alarm::Signature;

/// One failure found: where it is kept and how it was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Its place in the campaign directory (`alarms/000001`,
    /// `crashes/id:000004,...`).
    pub path: String,
    /// How it was found, in words (`system (radamsa-like)`, `unit main()
    /// parameter 0 (the input file): solved`).
    pub how: String,
    /// Seconds into the campaign, when known.
    pub found_after_s: Option<f64>,
    pub size: usize,
    /// Failures it stands for: itself and those of its signature the
    /// campaign counted without keeping them.
    pub count: u64,
}

/// The failures of one signature.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub signature: Signature,
    pub key: String,
    /// Its findings, the first found first.
    pub findings: Vec<Finding>,
    /// Size of the reduced reproducer, once reduced.
    pub reduced: Option<usize>,
}

impl Group {
    /// Failures of this signature: every finding and what it stands for.
    pub fn count(&self) -> u64 {
        self.findings.iter().map(|f| f.count.max(1)).sum()
    }
}

/// Groups `found` (each with its signature) by [`Signature::key`] at
/// `depth`, in order of their first finding.
pub fn group(found: Vec<(Finding, Signature)>, depth: usize) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (f, s) in found {
        let key = s.key(depth);
        match groups.iter_mut().find(|g| g.key == key) {
            Some(g) => g.findings.push(f),
            None => groups.push(Group { signature: s, key, findings: vec![f], reduced: None }),
        }
    }
    let when = |f: &Finding| f.found_after_s.unwrap_or(f64::INFINITY);
    for g in &mut groups {
        g.findings.sort_by(|a, b| when(a).total_cmp(&when(b)));
    }
    groups.sort_by(|a, b| when(&a.findings[0]).total_cmp(&when(&b.findings[0])));
    groups
}

/// The table: one row per signature.
pub fn render(groups: &[Group]) -> String {
    let mut rows = vec![[
        "#".to_string(),
        "kind".into(),
        "function".into(),
        "where".into(),
        "count".into(),
        "first found".into(),
        "size (reduced)".into(),
        "how it was found".into(),
    ]];
    for (k, g) in groups.iter().enumerate() {
        let top = g.signature.top();
        let function = top.map_or("?".into(), |f| f.function.clone());
        let place = top
            .and_then(|f| Some(format!("{}:{}", f.file.as_deref()?.rsplit('/').next()?, f.line?)))
            .unwrap_or_else(|| "-".into());
        let first = &g.findings[0];
        let when = first.found_after_s.map_or("-".into(), |s| format!("{s:.1} s"));
        let size = match g.reduced {
            Some(r) => format!("{} ({r})", first.size),
            None => first.size.to_string(),
        };
        rows.push([
            k.to_string(),
            g.signature.kind.to_string(),
            function,
            place,
            g.count().to_string(),
            when,
            size,
            first.how.clone(),
        ]);
    }
    let widths: Vec<usize> = (0..8).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for r in &rows {
        let cells: Vec<String> = r.iter().zip(&widths).map(|(c, &w)| format!("{c:<w$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::alarm::{FailureKind, Frame};

    fn sig(kind: &str, function: &str, line: u32) -> Signature {
        let frame =
            Frame { function: function.into(), file: Some("/src/p.c".into()), line: Some(line), module: "-".into() };
        Signature { kind: FailureKind::Signal(kind.into()), frames: vec![frame] }
    }

    fn finding(path: &str, at: f64) -> Finding {
        Finding { path: path.into(), how: "system".into(), found_after_s: Some(at), size: 10, count: 1 }
    }

    #[test]
    fn failures_group_by_signature_and_print_a_row_each() {
        let found = vec![
            (Finding { count: 40, ..finding("crashes/b", 5.0) }, sig("SIGSEGV", "show", 191)),
            (finding("alarms/000000", 2.0), sig("SIGABRT", "push_one", 221)),
            (finding("crashes/a", 1.0), sig("SIGSEGV", "show", 191)),
        ];
        let groups = group(found, 3);
        assert_eq!(groups.len(), 2);
        assert_eq!((groups[0].findings.len(), groups[0].findings[0].path.as_str()), (2, "crashes/a"));
        let text = render(&groups);
        assert!(text.lines().nth(1).unwrap().contains("SIGSEGV  show      p.c:191  41"), "{text}");
        assert_eq!(text.lines().count(), 3);
    }
}
