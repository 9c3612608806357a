//! The head of an HTTP/1.x request held as a system input: where its
//! request line, its headers and its body are. One reading for the
//! mapping (which parts are encoded, which numbers are framing) and for
//! the lifter (a `Content-Length` kept true).

/// Where the parts of a request are, as offsets into it.
pub struct Head {
    /// The request line's end (before its `\r`, if any).
    pub line_end: usize,
    /// Where ` HTTP/` starts in the request line.
    pub proto: usize,
    /// Each header line, `(start, end)` without its `\r\n`.
    pub headers: Vec<(usize, usize)>,
    /// Where the body starts (after the empty line); `None` when the
    /// headers never end.
    pub body: Option<usize>,
}

/// The head of `input` when its first line is a request line (it names
/// an `HTTP/` protocol).
pub fn head(input: &[u8]) -> Option<Head> {
    let line = |from: usize| -> Option<(usize, usize)> {
        let next = from + input[from..].iter().position(|&b| b == b'\n')?;
        let end = if input[from..next].ends_with(b"\r") { next - 1 } else { next };
        Some((end, next + 1))
    };
    let (line_end, mut at) = line(0)?;
    let proto = input[..line_end].windows(6).rposition(|w| w == b" HTTP/")?;
    let mut headers = Vec::new();
    let body = loop {
        let Some((end, next)) = line(at) else { break None };
        if end == at {
            break Some(next);
        }
        headers.push((at, end));
        at = next;
    };
    Some(Head { line_end, proto, headers, body })
}

impl Head {
    /// The span of the value of header `name` (the bytes after its colon,
    /// blanks included), matched without regard to case.
    pub fn header(&self, input: &[u8], name: &[u8]) -> Option<(usize, usize)> {
        self.headers.iter().find_map(|&(start, end)| {
            let h = &input[start..end];
            (h.len() > name.len() && h[..name.len()].eq_ignore_ascii_case(name) && h[name.len()] == b':')
                .then_some((start + name.len() + 1, end))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_requests_parts_are_found_with_or_without_carriage_returns() {
        for input in [
            &b"POST /a?x=1 HTTP/1.1\r\nHost: h\r\nContent-length: 3\r\n\r\nabc"[..],
            &b"POST /a?x=1 HTTP/1.1\nHost: h\nContent-length: 3\n\nabc"[..],
        ] {
            let h = head(input).unwrap();
            assert_eq!(&input[..h.line_end], b"POST /a?x=1 HTTP/1.1");
            assert_eq!(&input[h.proto..h.line_end], b" HTTP/1.1");
            assert_eq!(h.headers.len(), 2);
            let (a, b) = h.header(input, b"content-length").unwrap();
            assert_eq!(&input[a..b], b" 3");
            assert!(h.header(input, b"content-type").is_none());
            assert_eq!(&input[h.body.unwrap()..], b"abc");
        }
        assert!(head(b"not a request\n\nx").is_none());
        assert!(head(b"GET / HTTP/1.1\r\nHost: h\r\n").unwrap().body.is_none());
    }
}
