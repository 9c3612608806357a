//! An HTTP request's `Content-Length` kept true when a lifted value
//! changes the body's length: a server reads as many bytes as the header
//! says, so a longer body would be cut and a shorter one waited for.

use crate::Splice;

/// Where a request's parts are: the `Content-Length` value's digits
/// (`at..end`) and the body's start.
struct Layout {
    at: usize,
    end: usize,
    body: usize,
}

/// The layout of `input` when it is an HTTP/1.x request with a
/// `Content-Length` header.
fn layout(input: &[u8]) -> Option<Layout> {
    let h = model::http::head(input)?;
    if !matches!(&input[h.proto..h.line_end], b" HTTP/1.1" | b" HTTP/1.0") {
        return None;
    }
    let (value, end) = h.header(input, b"content-length")?;
    let at = value + input[value..end].iter().take_while(|b| b.is_ascii_whitespace()).count();
    let end = at + input[at..end].iter().take_while(|b| b.is_ascii_digit()).count();
    (end > at).then_some(Layout { at, end, body: h.body? })
}

/// The declared length, when it is the body's.
fn consistent(input: &[u8], l: &Layout) -> bool {
    std::str::from_utf8(&input[l.at..l.end]).ok().and_then(|s| s.parse::<usize>().ok()) == Some(input.len() - l.body)
}

/// Rewrites `out`'s `Content-Length` to its body's length when `input`,
/// the request it was lifted from, declared its own body's length and no
/// lifted value is written in that header (then the value is the test).
/// `splices` after the header move with it.
pub(crate) fn fix_content_length(input: &[u8], out: &mut Vec<u8>, splices: &mut [Splice]) {
    let (Some(before), Some(after)) = (layout(input), layout(out)) else { return };
    if !consistent(input, &before) || consistent(out, &after) {
        return;
    }
    if splices.iter().any(|s| s.at < after.end + 2 && s.at + s.len > after.at.saturating_sub(2)) {
        return;
    }
    let digits = (out.len() - after.body).to_string().into_bytes();
    let delta = digits.len() as isize - (after.end - after.at) as isize;
    out.splice(after.at..after.end, digits);
    for s in splices.iter_mut().filter(|s| s.at >= after.end) {
        s.at = (s.at as isize + delta) as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQUEST: &[u8] = b"POST /items HTTP/1.1\r\nHost: shop\r\ncontent-length: 5\r\n\r\na=b&c";

    fn fixed(input: &[u8], out: &[u8]) -> Vec<u8> {
        let mut out = out.to_vec();
        fix_content_length(input, &mut out, &mut []);
        out
    }

    #[test]
    fn the_length_follows_the_body() {
        let longer = b"POST /items HTTP/1.1\r\nHost: shop\r\ncontent-length: 5\r\n\r\na=bbbbbbbbbbbb&c";
        assert_eq!(
            fixed(REQUEST, longer),
            b"POST /items HTTP/1.1\r\nHost: shop\r\ncontent-length: 16\r\n\r\na=bbbbbbbbbbbb&c"
        );
        let shorter = b"POST /items HTTP/1.1\nContent-Length:5\n\na";
        let bare = b"POST /items HTTP/1.1\nContent-Length:5\n\na=b&c";
        assert_eq!(fixed(bare, shorter), b"POST /items HTTP/1.1\nContent-Length:1\n\na");
    }

    #[test]
    fn a_length_that_was_not_true_is_the_test() {
        let wrong = b"POST /items HTTP/1.1\r\ncontent-length: 9\r\n\r\na=b&c";
        let out = b"POST /items HTTP/1.1\r\ncontent-length: 9\r\n\r\na=bbb&c";
        assert_eq!(fixed(wrong, out), out);
        let not_http = b"content-length: 5\r\n\r\na=b&c";
        assert_eq!(fixed(not_http, b"content-length: 5\r\n\r\na=bb&c"), b"content-length: 5\r\n\r\na=bb&c");
    }

    #[test]
    fn splices_after_the_header_move_and_one_in_it_stops_the_fix() {
        let out = b"POST /items HTTP/1.1\r\nHost: shop\r\ncontent-length: 5\r\n\r\na=bbbbbbbbbbbb&c".to_vec();
        let body = out.len() - 16;
        let mut splices = [Splice { at: body + 2, end: body + 3, len: 12, value: 0 }];
        let mut o = out.clone();
        fix_content_length(REQUEST, &mut o, &mut splices);
        assert_eq!(splices[0].at, body + 3);
        assert_eq!(&o[splices[0].at..splices[0].at + 12], b"bbbbbbbbbbbb");
        let digits = out.windows(2).position(|w| w == b" 5").unwrap() + 1;
        let mut o = out.clone();
        fix_content_length(REQUEST, &mut o, &mut [Splice { at: digits, end: digits + 1, len: 1, value: 0 }]);
        assert_eq!(o, out);
    }
}
