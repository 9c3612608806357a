//! SARIF 2.1.0 for code scanning: one rule per kind of failure and
//! function, one result per signature at its innermost frame's file and
//! line, the frames outwards as related locations, and a fingerprint from
//! the signature that two campaigns give the same bug alike.

use crate::table::Group;
use model::alarm::Frame;
use serde_json::{json, Value};

/// The fingerprint of a signature key (the records' 64-bit FNV-1a, in
/// hex): stable across runs, platforms and versions.
pub fn fingerprint(key: &str) -> String {
    format!("{:016x}", model::snapshot::checksum(key.as_bytes()))
}

fn location(f: &Frame) -> Option<Value> {
    let (file, line) = (f.file.as_ref()?, f.line?);
    Some(json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(file) },
            "region": { "startLine": line }
        }
    }))
}

/// A file's URI: absolute paths as `file://` URIs, others as they are.
fn uri(path: &str) -> String {
    if path.starts_with('/') {
        format!("file://{}", path.replace(' ', "%20"))
    } else {
        path.to_string()
    }
}

/// The SARIF log of `groups`; `command` is how each reproducer runs
/// (shown in the message).
pub fn report(groups: &[Group], version: &str, command: &str) -> Value {
    let mut rules: Vec<(String, Value)> = Vec::new();
    let mut results = Vec::new();
    for g in groups {
        let top = g.signature.top();
        let function = top.map_or("?", |f| f.function.as_str());
        let rule_id = format!("{}/{}", g.signature.kind, function);
        let index = match rules.iter().position(|(id, _)| *id == rule_id) {
            Some(i) => i,
            None => {
                rules.push((
                    rule_id.clone(),
                    json!({
                        "id": rule_id,
                        "name": format!("{} in {}", g.signature.kind, function),
                        "shortDescription": { "text": format!("The program fails with {} in {}", g.signature.kind, function) },
                        "defaultConfiguration": { "level": "error" }
                    }),
                ));
                rules.len() - 1
            }
        };
        let frames = g.signature.telling();
        let related: Vec<Value> = frames
            .iter()
            .skip(1)
            .enumerate()
            .filter_map(|(k, f)| {
                let mut l = location(f)?;
                l["id"] = json!(k + 1);
                l["message"] = json!({ "text": format!("called from {}", f.function) });
                Some(l)
            })
            .collect();
        let first = &g.findings[0];
        let text = format!(
            "{} in {} ({} found; first: {}, found by {}). Reproduce with: {} {}",
            g.signature.kind,
            frames.iter().map(|f| f.function.as_str()).collect::<Vec<_>>().join(" <- "),
            g.count(),
            first.path,
            first.how,
            command,
            first.path,
        );
        let mut result = json!({
            "ruleId": rule_id,
            "ruleIndex": index,
            "level": "error",
            "message": { "text": text },
            "partialFingerprints": { "primaryLocationLineHash": fingerprint(&g.key) }
        });
        if let Some(l) = top.and_then(location) {
            result["locations"] = json!([l]);
        }
        if !related.is_empty() {
            result["relatedLocations"] = json!(related);
        }
        results.push(result);
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "bridge",
                "version": version,
                "rules": rules.into_iter().map(|(_, r)| r).collect::<Vec<_>>()
            }},
            "results": results
        }]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{group, Finding};
    use model::alarm::{FailureKind, Signature};

    #[test]
    fn one_rule_per_kind_and_function_and_a_stable_fingerprint() {
        let frame =
            |f: &str, l| Frame { function: f.into(), file: Some("/s/p.c".into()), line: Some(l), module: "-".into() };
        let s1 = Signature {
            kind: FailureKind::Signal("SIGSEGV".into()),
            frames: vec![frame("show", 191), frame("main", 308)],
        };
        let s2 = Signature {
            kind: FailureKind::Signal("SIGSEGV".into()),
            frames: vec![frame("show", 195), frame("main", 308)],
        };
        let f = |p: &str| Finding { path: p.into(), how: "system".into(), found_after_s: Some(1.0), size: 3, count: 1 };
        let groups = group(vec![(f("a"), s1.clone()), (f("b"), s2)], 3);
        let log = report(&groups, "0.1.0", "./p");
        let run = &log["runs"][0];
        assert_eq!(run["tool"]["driver"]["rules"].as_array().unwrap().len(), 1);
        assert_eq!(run["results"].as_array().unwrap().len(), 2);
        let r = &run["results"][0];
        assert_eq!(r["locations"][0]["physicalLocation"]["region"]["startLine"], 191);
        assert_eq!(r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 308);
        // The same signature, the same fingerprint; another, another.
        let again = report(&group(vec![(f("z"), s1)], 3), "0.1.0", "./p");
        assert_eq!(again["runs"][0]["results"][0]["partialFingerprints"], r["partialFingerprints"]);
        assert_ne!(run["results"][1]["partialFingerprints"], r["partialFingerprints"]);
        assert_eq!(fingerprint(""), "cbf29ce484222325");
    }
}
