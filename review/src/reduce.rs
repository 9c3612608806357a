//! Reduction of a failing test (delta debugging, Zeller's ddmin): first
//! the words of its command line (when it carries one), then the lines of
//! its content, then bytes, then each byte made plain (`0`), as afl-tmin
//! does. The oracle decides what "still fails" means; `bridge` gives it
//! "the same kind of failure and the same innermost frames", so a
//! reduction never slips to another bug.

/// `items` made 1-minimal for `fails` (no single chunk of the last
/// granularity can go), with at most `budget` calls left to spend.
pub fn ddmin<T: Clone>(mut items: Vec<T>, fails: &mut dyn FnMut(&[T]) -> bool, budget: &mut usize) -> Vec<T> {
    let mut n = 2usize;
    while items.len() >= 2 && *budget > 0 {
        let chunk = items.len().div_ceil(n);
        let mut reduced = false;
        let mut start = 0;
        while start < items.len() && *budget > 0 {
            let end = (start + chunk).min(items.len());
            let rest: Vec<T> = items[..start].iter().chain(&items[end..]).cloned().collect();
            *budget -= 1;
            if fails(&rest) {
                items = rest;
                n = n.saturating_sub(1).max(2);
                reduced = true;
                break;
            }
            start = end;
        }
        if !reduced {
            if n >= items.len() {
                break;
            }
            n = (2 * n).min(items.len());
        }
    }
    items
}

/// How a test splits: its command line (words, when it carries one) and
/// its content.
fn split(test: &[u8], args_in_input: bool) -> (Option<Vec<Vec<u8>>>, Vec<u8>) {
    if !args_in_input {
        return (None, test.to_vec());
    }
    let line_end = test.iter().position(|&b| b == b'\n').unwrap_or(test.len());
    let (words, content) = exec::split_test(test);
    // Words are put back with the quoting each needs; a line that does
    // not split as a shell would split it is left whole.
    let plain = model::shell::words(&test[..line_end]).is_some();
    (plain.then_some(words), content.to_vec())
}

fn join(words: &Option<Vec<Vec<u8>>>, line: &[u8], content: &[u8]) -> Vec<u8> {
    let mut out = match words {
        Some(w) => {
            let quoted: Vec<Vec<u8>> = w.iter().map(|w| quote(w)).collect();
            quoted.join(&b' ')
        }
        None => line.to_vec(),
    };
    out.push(b'\n');
    out.extend_from_slice(content);
    out
}

/// A word as a shell reads it back: as it is when plain, else in single
/// quotes.
fn quote(w: &[u8]) -> Vec<u8> {
    let plain = !w.is_empty() && w.iter().all(|&b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        return w.to_vec();
    }
    let mut out = vec![b'\''];
    for &b in w {
        if b == b'\'' {
            out.extend_from_slice(b"'\\''");
        } else {
            out.push(b);
        }
    }
    out.push(b'\'');
    out
}

/// What a reduction did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reduced {
    pub test: Vec<u8>,
    /// Oracle calls (runs of the program).
    pub runs: usize,
}

/// `test` reduced while `fails` holds, in at most `max_runs` runs.
/// `args_in_input`: the test's first line is the command line.
pub fn reduce(test: &[u8], args_in_input: bool, max_runs: usize, fails: &mut dyn FnMut(&[u8]) -> bool) -> Reduced {
    let mut budget = max_runs;
    let line_end = test.iter().position(|&b| b == b'\n').unwrap_or(test.len());
    let line = if args_in_input { test[..line_end].to_vec() } else { Vec::new() };
    let (mut words, mut content) = split(test, args_in_input);
    let assemble = |words: &Option<Vec<Vec<u8>>>, content: &[u8]| {
        if args_in_input {
            join(words, &line, content)
        } else {
            content.to_vec()
        }
    };
    if let Some(w) = words.clone() {
        let c = content.clone();
        let kept = ddmin(w, &mut |w: &[Vec<u8>]| fails(&assemble(&Some(w.to_vec()), &c)), &mut budget);
        words = Some(kept);
    }
    let lines: Vec<Vec<u8>> = content.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    let kept = ddmin(lines, &mut |l: &[Vec<u8>]| fails(&assemble(&words, &l.concat())), &mut budget);
    content = kept.concat();
    content = ddmin(content, &mut |b: &[u8]| fails(&assemble(&words, b)), &mut budget);
    for k in 0..content.len() {
        if budget == 0 {
            break;
        }
        if content[k] == b'0' {
            continue;
        }
        let mut plain = content.clone();
        plain[k] = b'0';
        budget -= 1;
        if fails(&assemble(&words, &plain)) {
            content = plain;
        }
    }
    let test = assemble(&words, &content);
    Reduced { test, runs: max_runs - budget }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ddmin_finds_the_bytes_that_matter() {
        let input: Vec<u8> = b"aaaXbbbbYcccZ".to_vec();
        let mut budget = 1000;
        let out = ddmin(input, &mut |b: &[u8]| b.contains(&b'X') && b.contains(&b'Z'), &mut budget);
        assert_eq!(out, b"XZ");
    }

    #[test]
    fn a_reduction_keeps_the_failure_and_the_command_line_word_it_needs() {
        // Fails when the command line has `-v` and a line holds `boom`.
        let fails = |t: &[u8]| {
            let (w, c) = exec::split_test(t);
            w.iter().any(|w| w == b"-v") && c.windows(4).any(|x| x == b"boom")
        };
        let test = b"-a -v 'x y' -z\nfirst\nsecond boom here\nthird\n";
        let r = reduce(test, true, 10_000, &mut |t| fails(t));
        assert!(fails(&r.test), "{}", String::from_utf8_lossy(&r.test));
        assert_eq!(r.test, b"-v\nboom");
        // Without a command line, the content alone.
        let r = reduce(b"xx boom yy", false, 10_000, &mut |t| t.windows(4).any(|x| x == b"boom"));
        assert_eq!(r.test, b"boom");
        // The budget bounds the runs.
        let r = reduce(b"xx boom yy", false, 3, &mut |t| t.windows(4).any(|x| x == b"boom"));
        assert!(r.runs <= 3);
    }
}
