//! Dictionary files in AFL++'s format (`-x`): one token a line, as
//! `name="value"` or `"value"`, `#` starting a comment; in the value, `\\`,
//! `\"` and `\xNN` stand for a backslash, a quote and any byte, and the
//! value runs to the line's last quote. The dictionaries of AFL++ and of
//! libFuzzer (OSS-Fuzz's `.dict` files) are read as they are. An entry
//! whose name has a level above 0 (`name@1="..."`) is left out, as AFL++
//! leaves it out at its default level.

use std::path::Path;

/// Longest token kept (AFL++'s limit).
pub const MAX_TOKEN: usize = 128;

/// What is wrong with a dictionary file.
#[derive(Debug, thiserror::Error)]
pub enum DictError {
    #[error("cannot read dictionary {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path}:{line}: {what}")]
    Syntax { path: String, line: usize, what: String },
}

/// The tokens of the dictionary file at `path`.
pub fn load(path: &Path) -> Result<Vec<Vec<u8>>, DictError> {
    let shown = path.display().to_string();
    let text = std::fs::read(path).map_err(|source| DictError::Read { path: shown.clone(), source })?;
    parse(&text).map_err(|(line, what)| DictError::Syntax { path: shown, line, what })
}

/// The tokens of a dictionary's text, or the first bad line (1-based)
/// and what is wrong with it.
pub fn parse(text: &[u8]) -> Result<Vec<Vec<u8>>, (usize, String)> {
    let mut out = Vec::new();
    for (k, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = line.trim_ascii();
        if line.is_empty() || line[0] == b'#' {
            continue;
        }
        let Some(token) = entry(line).map_err(|what| (k + 1, what))? else { continue };
        if token.is_empty() {
            return Err((k + 1, "an empty token".into()));
        }
        if token.len() > MAX_TOKEN {
            return Err((k + 1, format!("a token longer than {MAX_TOKEN} bytes")));
        }
        if !out.contains(&token) {
            out.push(token);
        }
    }
    Ok(out)
}

/// The value of one line (`name="..."`, `name "..."` or `"..."`), or
/// none when its name's level is above 0.
fn entry(line: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let open = line.iter().position(|&b| b == b'"').ok_or("no quoted value")?;
    if line.last() != Some(&b'"') || open + 1 == line.len() {
        return Err("the value's quotes do not close".into());
    }
    let name = line[..open].trim_ascii();
    let name = name.strip_suffix(b"=").unwrap_or(name).trim_ascii();
    let (label, level) = match name.iter().position(|&b| b == b'@') {
        Some(at) => (&name[..at], Some(&name[at + 1..])),
        None => (name, None),
    };
    if !label.iter().all(|&b| b.is_ascii_alphanumeric() || b"_.-".contains(&b)) {
        return Err("expected name=\"value\" or \"value\"".into());
    }
    if let Some(level) = level {
        let n: u32 =
            std::str::from_utf8(level).ok().and_then(|l| l.parse().ok()).ok_or("a level is a number: name@N")?;
        if n > 0 {
            return Ok(None);
        }
    }
    value(&line[open + 1..line.len() - 1]).map(Some)
}

/// A value's bytes, its escapes undone.
fn value(body: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i] != b'\\' {
            out.push(body[i]);
            i += 1;
            continue;
        }
        match body.get(i + 1) {
            Some(b'\\') => out.push(b'\\'),
            Some(b'"') => out.push(b'"'),
            Some(b'x') => {
                let hex = body.get(i + 2..i + 4).and_then(|h| std::str::from_utf8(h).ok());
                out.push(hex.and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or("\\x needs two hex digits")?);
                i += 2;
            }
            _ => return Err("a backslash must be followed by \\, \" or xNN".into()),
        }
        i += 2;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn afl_and_libfuzzer_dictionaries_are_read() {
        let text = b"# keywords\nkw_select=\"SELECT\"\n\"\\x89PNG\"\nheader@0=\"a\\\\b\\\"c\"\n\n  \"SELECT\"  \nsep \"a\"b\"\nrare@2=\"skipped\"\n";
        let t = parse(text).unwrap();
        assert_eq!(t, vec![b"SELECT".to_vec(), b"\x89PNG".to_vec(), b"a\\b\"c".to_vec(), b"a\"b".to_vec()]);
    }

    #[test]
    fn bad_lines_are_named() {
        assert_eq!(parse(b"\"ok\"\nbare\n").unwrap_err().0, 2);
        assert!(parse(b"\"open\n").unwrap_err().1.contains("quotes"));
        assert!(parse(b"\"\n").unwrap_err().1.contains("quotes"));
        assert!(parse(b"\"\\xZZ\"\n").unwrap_err().1.contains("hex"));
        assert!(parse(b"\"\"\n").unwrap_err().1.contains("empty"));
        assert!(parse(b"a b=\"x\"\n").is_err());
        assert!(parse(b"n@x=\"x\"\n").unwrap_err().1.contains("level"));
    }
}
