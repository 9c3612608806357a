//! The system input as the program decodes it before a value reaches the
//! carved call: percent-encoding (a query string, a form body: `+` for a
//! blank, `%XX` for a byte) and JSON string escapes (`\"`, `\u00e9`...). A
//! string of the unit that the input holds only encoded is found in the
//! decoded view, and its occurrence is the encoded span of the input: the
//! lifter writes a new value encoded the same way (`model::unit::Encoding`).

use model::unit::Encoding;

/// The input decoded one way, each decoded byte with the span of the input
/// it came from.
pub struct Decoded {
    pub encoding: Encoding,
    pub bytes: Vec<u8>,
    /// `(start, end)` in the input of each decoded byte.
    spans: Vec<(usize, usize)>,
    /// Whether each decoded byte is part of input bytes kept as they are
    /// (not `+` made a blank, not an escape decoded).
    verbatim: Vec<bool>,
}

impl Decoded {
    fn push(&mut self, input: &[u8], bytes: &[u8], start: usize, end: usize) {
        let verbatim = input[start..end] == *bytes;
        for &b in bytes {
            self.bytes.push(b);
            self.spans.push((start, end));
            self.verbatim.push(verbatim);
        }
    }

    /// The input spans `(offset, length)` of the non-overlapping
    /// occurrences of `text` in the decoded bytes that are encoded there,
    /// a byte of them at least (an occurrence the input holds as it is is
    /// found without decoding; `+` for a blank is one byte for one).
    pub fn find(&self, text: &[u8]) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        if text.is_empty() || text.len() > self.bytes.len() {
            return out;
        }
        let mut i = 0;
        while i + text.len() <= self.bytes.len() {
            if &self.bytes[i..i + text.len()] == text {
                let (start, end) = (self.spans[i].0, self.spans[i + text.len() - 1].1);
                if self.verbatim[i..i + text.len()].contains(&false) {
                    out.push((start as u64, (end - start) as u64));
                }
                i += text.len();
            } else {
                i += 1;
            }
        }
        out
    }
}

/// Percent-decoding of the whole input: `+` is a blank, `%XX` a byte.
pub fn percent(input: &[u8]) -> Decoded {
    let mut d = Decoded { encoding: Encoding::Percent, bytes: Vec::new(), spans: Vec::new(), verbatim: Vec::new() };
    let mut i = 0;
    while i < input.len() {
        match input[i] {
            b'+' => d.push(input, b" ", i, i + 1),
            b'%' if i + 2 < input.len() && hex(input[i + 1]).is_some() && hex(input[i + 2]).is_some() => {
                let b = hex(input[i + 1]).unwrap_or(0) << 4 | hex(input[i + 2]).unwrap_or(0);
                d.push(input, &[b], i, i + 3);
                i += 3;
                continue;
            }
            b => d.push(input, &[b], i, i + 1),
        }
        i += 1;
    }
    d
}

/// JSON string escapes decoded inside the input's double-quoted strings
/// (`\uXXXX` to UTF-8, a surrogate pair to one character); the rest as it
/// is.
pub fn json(input: &[u8]) -> Decoded {
    let mut d = Decoded { encoding: Encoding::Json, bytes: Vec::new(), spans: Vec::new(), verbatim: Vec::new() };
    let (mut i, mut inside) = (0, false);
    while i < input.len() {
        let b = input[i];
        if !inside || b != b'\\' {
            if b == b'"' {
                inside = !inside;
            }
            d.push(input, &[b], i, i + 1);
            i += 1;
            continue;
        }
        let Some(&e) = input.get(i + 1) else { break };
        let simple = match e {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            _ => None,
        };
        if let Some(c) = simple {
            d.push(input, &[c], i, i + 2);
            i += 2;
            continue;
        }
        let unit = |at: usize| -> Option<u32> {
            let h = input.get(at..at + 4)?;
            h.iter().try_fold(0u32, |acc, &c| Some(acc << 4 | u32::from(hex(c)?)))
        };
        match (e, unit(i + 2)) {
            (b'u', Some(hi)) if (0xd800..0xdc00).contains(&hi) && input.get(i + 6..i + 8) == Some(b"\\u") => {
                let lo = unit(i + 8).filter(|lo| (0xdc00..0xe000).contains(lo));
                let c = lo.and_then(|lo| char::from_u32(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)));
                let mut buf = [0u8; 4];
                match c {
                    Some(c) => {
                        d.push(input, c.encode_utf8(&mut buf).as_bytes(), i, i + 12);
                        i += 12;
                    }
                    None => {
                        d.push(input, &input[i..i + 2], i, i + 2);
                        i += 2;
                    }
                }
            }
            (b'u', Some(u)) => {
                let mut buf = [0u8; 4];
                match char::from_u32(u) {
                    Some(c) => d.push(input, c.encode_utf8(&mut buf).as_bytes(), i, i + 6),
                    None => d.push(input, &input[i..i + 6], i, i + 6),
                }
                i += 6;
            }
            _ => {
                d.push(input, &input[i..i + 2], i, i + 2);
                i += 2;
            }
        }
    }
    d
}

/// The parts of an HTTP/1.x request that the server decodes before a
/// value of theirs reaches the application: the query string, a form
/// body (percent-encoding), the strings of a JSON body (JSON escapes).
/// `(start, end, encoding)`; nothing for an input that is no request.
/// Where an HTTP request holds numbers of its framing, not the
/// application's: the protocol version of the request line (`HTTP/1.1`)
/// and the value of `Content-Length` (which the lifter keeps true). A
/// number of the program equal to one of them is a coincidence.
pub fn http_framing(input: &[u8]) -> Vec<(usize, usize)> {
    let Some(h) = model::http::head(input) else { return Vec::new() };
    let mut out = vec![(h.proto + 1, h.line_end)];
    out.extend(h.header(input, b"content-length"));
    out
}

/// The encoded parts of an HTTP request, `(start, end, encoding)`: the
/// query string, a form body, the strings of a JSON body.
pub fn http_regions(input: &[u8]) -> Vec<(usize, usize, Encoding)> {
    let mut out = Vec::new();
    let Some(h) = model::http::head(input) else { return out };
    if let Some(q) = input[..h.proto].iter().position(|&b| b == b'?') {
        out.push((q + 1, h.proto, Encoding::Percent));
    }
    let Some(body) = h.body else { return out };
    let kind = h.header(input, b"content-type").map(|(a, b)| input[a..b].trim_ascii().to_ascii_lowercase());
    let kind = kind.unwrap_or_default();
    if kind.starts_with(b"application/x-www-form-urlencoded") {
        out.push((body, input.len(), Encoding::Percent));
    } else if kind.starts_with(b"application/json") {
        let (mut start, mut escaped) = (None, false);
        for (i, &b) in input.iter().enumerate().skip(body) {
            match (start, b) {
                (Some(_), _) if escaped => escaped = false,
                (Some(_), b'\\') => escaped = true,
                (Some(s), b'"') => {
                    out.push((s, i, Encoding::Json));
                    start = None;
                }
                (None, b'"') => start = Some(i + 1),
                _ => {}
            }
        }
    }
    out
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_encoded_values_are_found_where_they_stand() {
        let input = b"POST /items HTTP/1.1\r\n\r\nname=green+sofa%2Dbed&price=9900";
        let d = percent(input);
        let at = input.windows(3).position(|w| w == b"gre").unwrap() as u64;
        assert_eq!(d.find(b"green sofa-bed"), vec![(at, 16)]);
        // Found without decoding: not an encoded occurrence.
        assert_eq!(d.find(b"price"), vec![]);
        assert_eq!(d.find(b"sofa bed"), vec![]);
        // `+` for a blank is one byte for one, and still an encoding.
        let input = b"name=green+sofa+bed&price=9900";
        assert_eq!(percent(input).find(b"green sofa bed"), vec![(5, 14)]);
        assert_eq!(percent(input).find(b"9900"), vec![]);
    }

    #[test]
    fn json_escapes_are_decoded_inside_strings_only() {
        let input = br#"{"text": "red\u0001chair \u00e9 \"q\" \ud83d\ude00", "w": "a\\b"}"#;
        let d = json(input);
        let want = "red\u{1}chair é \"q\" 😀".as_bytes();
        let at = input.windows(3).position(|w| w == b"red").unwrap() as u64;
        let len = input.windows(7).position(|w| w == br#"\ude00""#).unwrap() as u64 + 6 - at;
        assert_eq!(d.find(want), vec![(at, len)]);
        assert_eq!(d.find(b"a\\b").len(), 1);
        // An escape outside a string stays as it is.
        let outside = json(br#"x\u0041 "\u0041""#);
        assert_eq!(outside.find(b"A").len(), 1);
    }

    #[test]
    fn a_requests_framing_is_no_place_for_values() {
        let input = b"POST /items/7 HTTP/1.1\r\nHost: shop\r\nContent-Length: 11\r\n\r\nname=x&p=11";
        let text = |(a, b): (usize, usize)| &input[a..b];
        let spans = http_framing(input);
        assert_eq!(spans.iter().map(|&s| text(s)).collect::<Vec<_>>(), [&b"HTTP/1.1"[..], b" 11"]);
        assert!(http_framing(b"7 11\n").is_empty());
    }

    #[test]
    fn a_request_says_which_of_its_parts_are_encoded() {
        let get = b"GET /search?q=an&hl=an HTTP/1.1\r\nHost: shop\r\n\r\n";
        assert_eq!(http_regions(get), vec![(12, 22, Encoding::Percent)]);
        let form = b"POST /items HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nname=a+b";
        assert_eq!(http_regions(form), vec![(form.len() - 8, form.len(), Encoding::Percent)]);
        let json = br#"POST /s HTTP/1.1
content-type: application/json

{"text": "a\"b", "w": 3}"#;
        let at = |frag: &[u8]| json.windows(frag.len()).position(|w| w == frag).unwrap();
        assert_eq!(
            http_regions(json),
            vec![
                (at(b"text"), at(b"text") + 4, Encoding::Json),
                (at(b"a\\"), at(b"a\\") + 4, Encoding::Json),
                (at(b"w\""), at(b"w\"") + 1, Encoding::Json)
            ]
        );
        assert!(http_regions(b"a=b+c\n").is_empty(), "no request");
    }
}
