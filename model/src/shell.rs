//! The shell words of a test's first line when it is the program's command
//! line (`--args-in-input`): where each word stands and what it says, the
//! quoting in force at a byte, and how a new value is written at a place
//! of the line so that the line splits back to it. The splitting is the
//! one `exec::split_test` does (the `shlex` crate's): blanks, `'...'` and
//! `"..."` quoting, backslashes, and a `#` at a word's start, which starts
//! a comment.

/// A word of the line: bytes `start..end` (its quotes included) say `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub start: usize,
    pub end: usize,
    pub text: Vec<u8>,
}

/// The quoting in force at a place of the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    None,
    Single,
    Double,
}

fn blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n')
}

/// The words of `line`; `None` when its quotes do not balance (or it ends
/// in a backslash), where the split falls back to blanks alone.
pub fn words(line: &[u8]) -> Option<Vec<Word>> {
    let n = line.len();
    let (mut out, mut i) = (Vec::new(), 0);
    loop {
        while i < n && (blank(line[i]) || line[i] == b'#') {
            if line[i] == b'#' {
                i = line[i..].iter().position(|&c| c == b'\n').map_or(n, |k| i + k);
            }
            i += 1;
        }
        if i >= n {
            return Some(out);
        }
        let (start, mut text) = (i, Vec::new());
        while i < n && !blank(line[i]) {
            match line[i] {
                b'\'' => {
                    let k = line[i + 1..].iter().position(|&c| c == b'\'')?;
                    text.extend_from_slice(&line[i + 1..i + 1 + k]);
                    i += k + 2;
                }
                b'"' => {
                    i += 1;
                    loop {
                        match *line.get(i)? {
                            b'"' => break,
                            b'\\' => {
                                match *line.get(i + 1)? {
                                    c @ (b'$' | b'`' | b'"' | b'\\') => text.push(c),
                                    b'\n' => {}
                                    c => text.extend_from_slice(&[b'\\', c]),
                                }
                                i += 2;
                            }
                            c => {
                                text.push(c);
                                i += 1;
                            }
                        }
                    }
                    i += 1;
                }
                b'\\' => {
                    let c = *line.get(i + 1)?;
                    if c != b'\n' {
                        text.push(c);
                    }
                    i += 2;
                }
                c => {
                    text.push(c);
                    i += 1;
                }
            }
        }
        out.push(Word { start, end: i, text });
    }
}

/// The words of `line` as the test's command line splits: as a shell
/// splits it, or at blanks alone when its quotes do not balance.
pub fn line_words(line: &[u8]) -> Vec<Word> {
    words(line).unwrap_or_else(|| blank_words(line))
}

/// The words of `line` split at ASCII blanks alone.
pub fn blank_words(line: &[u8]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &c) in line.iter().chain([&b' ']).enumerate() {
        if c.is_ascii_whitespace() {
            if i > start {
                out.push(Word { start, end: i, text: line[start..i].to_vec() });
            }
            start = i + 1;
        }
    }
    out
}

/// The quoting in force after `prefix`, a beginning of the line.
pub fn quoting_at(prefix: &[u8]) -> Quote {
    let (mut q, mut i) = (Quote::None, 0);
    while i < prefix.len() {
        match (q, prefix[i]) {
            (Quote::None | Quote::Double, b'\\') => i += 1,
            (Quote::None, b'\'') => q = Quote::Single,
            (Quote::None, b'"') => q = Quote::Double,
            (Quote::Single, b'\'') | (Quote::Double, b'"') => q = Quote::None,
            _ => {}
        }
        i += 1;
    }
    q
}

/// `text` written where `quote` is in force, so that it reads back as
/// itself, here and in a POSIX shell (a newline cannot be: it ends the
/// line). Outside quotes, text a shell would take apart (a blank, `;`,
/// `*`, a quote...) is quoted as the `shlex` crate quotes it (`'/[q]/p'`;
/// the empty text is `''`); inside quotes, what would end them or be
/// expanded is escaped.
pub fn escape(text: &[u8], quote: Quote) -> Vec<u8> {
    if quote == Quote::None {
        // (Only a NUL cannot be quoted, and no text holds one.)
        return shlex::bytes::try_quote(text).map_or_else(|_| text.to_vec(), |q| q.into_owned());
    }
    let mut out = Vec::with_capacity(text.len() + 2);
    for &c in text {
        match (quote, c) {
            (Quote::Double, b'$' | b'`' | b'"' | b'\\') => out.extend_from_slice(&[b'\\', c]),
            (Quote::Single, b'\'') => out.extend_from_slice(b"'\\''"),
            _ => out.push(c),
        }
    }
    out
}

/// [`escape`] for text written at a place of a word: `word_start`, the
/// place starts a word; `word_end`, it ends one. Outside quotes, as the
/// words of a command line are usually written: text that a POSIX shell,
/// interactive or not, and the split of the line both read as it is stays
/// bare (letters, digits, `+ - . / : @ ] _` and `^ = % ,`, which no shell
/// expands there, and `~` but where it would start a word), empty text
/// inside a word stays empty (a whole word is `''`), and other text
/// without a `'` goes in single quotes, where every byte is itself
/// (`'s/\(a\)/\1/'`, which [`escape`] would put in double quotes with
/// its backslashes doubled).
pub fn escape_in(text: &[u8], quote: Quote, word_start: bool, word_end: bool) -> Vec<u8> {
    if quote != Quote::None {
        return escape(text, quote);
    }
    let bare = text.iter().enumerate().all(|(i, &c)| {
        c.is_ascii_alphanumeric() || b"+-./:@]_^=%,".contains(&c) || c == b'~' && !(i == 0 && word_start)
    });
    if text.is_empty() && !(word_start && word_end) || !text.is_empty() && bare {
        return text.to_vec();
    }
    if !text.is_empty() && !text.contains(&b'\'') && !text.contains(&0) {
        return [&b"'"[..], text, b"'"].concat();
    }
    escape(text, quote)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn words_say_what_shlex_says_and_stand_where_they_are() {
        let line = br#"-e 's/a/b/' -n x\ y "a\"b\$c\q" #rest"#;
        let w = words(line).unwrap();
        let texts: Vec<&[u8]> = w.iter().map(|w| &w.text[..]).collect();
        assert_eq!(texts, [&b"-e"[..], b"s/a/b/", b"-n", b"x y", br#"a"b$c\q"#]);
        assert_eq!(&line[w[1].start..w[1].end], b"'s/a/b/'");
        assert_eq!(&line[w[3].start..w[3].end], br"x\ y");
        assert_eq!(words(b"-e 'open"), None);
        let open: Vec<Vec<u8>> = line_words(b" -e\t'open  x").into_iter().map(|w| w.text).collect();
        assert_eq!(open, [&b"-e"[..], b"'open", b"x"]);
        assert_eq!(words(b"a\\"), None);
        // Against the crate, on lines of the characters that matter.
        let alphabet = b" \t'\"\\#ab$`";
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            let len = (seed % 9) as usize;
            let line: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            let ours = words(&line).map(|w| w.into_iter().map(|w| w.text).collect::<Vec<_>>());
            assert_eq!(ours, shlex::bytes::split(&line), "{:?}", String::from_utf8_lossy(&line));
        }
    }

    #[test]
    fn text_escaped_for_its_place_in_a_word_splits_back_to_itself_here_and_in_a_shell() {
        let cases: [(&[u8], &[u8], &[u8]); 8] = [
            (b"1~5", b"1~5", b"x"),
            (b"/^a=%,/", b"/^a=%,/", b"x"),
            (b"~5", b"'~5'", b""),
            (b"a b*", b"'a b*'", b"x"),
            (b"", b"", b"x"),
            (b"", b"''", b""),
            (br"s/\(a\)/\1/", br"'s/\(a\)/\1/'", b"x"),
            (b"it's", b"\"it's\"", b"x"),
        ];
        for (value, written, after) in cases {
            let mine = escape_in(value, Quote::None, true, after.is_empty());
            assert_eq!(mine, written, "{}", String::from_utf8_lossy(value));
            let line = [b"-e ".as_slice(), &mine, after, b" z"].concat();
            assert_eq!(words(&line).unwrap()[1].text, [value, after].concat());
            let sh = std::process::Command::new("sh")
                .arg("-c")
                .arg(std::ffi::OsStr::from_bytes(&[b"printf '<%s>' ".as_slice(), &line].concat()))
                .output()
                .unwrap();
            let want = [b"<-e><".as_slice(), value, after, b"><z>"].concat();
            assert_eq!(sh.stdout, want, "{}", String::from_utf8_lossy(&line));
        }
    }

    #[test]
    fn an_escaped_value_splits_back_to_itself_in_every_quoting() {
        let value = b"a b\t'c\"d\\e#f$g`h;i*j|k";
        for (open, close, quote) in [("", "", Quote::None), ("'", "'", Quote::Single), ("\"", "\"", Quote::Double)] {
            let line = [b"-e x".as_slice(), open.as_bytes(), &escape(value, quote), close.as_bytes(), b"y z"].concat();
            assert_eq!(quoting_at(&[b"-e x".as_slice(), open.as_bytes()].concat()), quote);
            let w = words(&line).unwrap();
            assert_eq!(w[1].text, [b"x".as_slice(), value, b"y"].concat(), "{}", String::from_utf8_lossy(&line));
            assert_eq!(shlex::bytes::split(&line).unwrap()[1], w[1].text);
            // And in a shell.
            let sh = std::process::Command::new("sh")
                .arg("-c")
                .arg(std::ffi::OsStr::from_bytes(&[b"printf %s ".as_slice(), &line].concat()))
                .output()
                .unwrap();
            assert_eq!(sh.stdout, [b"-ex".as_slice(), value, b"yz"].concat(), "{}", String::from_utf8_lossy(&line));
        }
    }
}
