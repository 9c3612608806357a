//! Unicode mutators: overlong encodings of ASCII (`uw`) and funny code points (`ui`).

use super::ctx::Ctx;

/// Sequences that trip up text handling: byte-order marks, direction overrides, zero-width
/// and other invisible characters, non-characters, surrogates, code points past U+10FFFF,
/// obsolete 5- and 6-byte forms, stray or missing continuation bytes, bytes never valid.
const FUNNY: &[&[u8]] = &[
    b"\xef\xbb\xbf",                     // U+FEFF byte-order mark
    b"\xff\xfe",                         // UTF-16 LE byte-order mark
    b"\xfe\xff",                         // UTF-16 BE byte-order mark
    b"\xe2\x80\xae",                     // U+202E right-to-left override
    b"\xe2\x80\xad",                     // U+202D left-to-right override
    b"\xe2\x81\xa6",                     // U+2066 left-to-right isolate
    b"\xe2\x80\x8b",                     // U+200B zero-width space
    b"\xe2\x80\x8c",                     // U+200C zero-width non-joiner
    b"\xe2\x80\x8d",                     // U+200D zero-width joiner
    b"\xe2\x81\xa0",                     // U+2060 word joiner
    b"\xe2\x80\xa8",                     // U+2028 line separator
    b"\xe2\x80\xa9",                     // U+2029 paragraph separator
    b"\xc2\x85",                         // U+0085 next line
    b"\xc2\xa0",                         // U+00A0 no-break space
    b"\xef\xbf\xbe",                     // U+FFFE non-character
    b"\xef\xbf\xbf",                     // U+FFFF non-character
    b"\xef\xb7\x90",                     // U+FDD0 non-character
    b"\xef\xbf\xbd",                     // U+FFFD replacement character
    b"\xed\xa0\x80",                     // U+D800 lone high surrogate
    b"\xed\xbf\xbf",                     // U+DFFF lone low surrogate
    b"\xed\xa0\xbd\xed\xb8\x80",         // surrogate pair encoded as CESU-8
    b"\xf4\x8f\xbf\xbf",                 // U+10FFFF, the last code point
    b"\xf4\x90\x80\x80",                 // U+110000, past the last
    b"\xf7\xbf\xbf\xbf",                 // U+1FFFFF, the largest 4-byte form
    b"\xfb\xbf\xbf\xbf\xbf",             // 5-byte form
    b"\xfd\xbf\xbf\xbf\xbf\xbf",         // 6-byte form, U+7FFFFFFF
    b"\xc0\x80",                         // overlong NUL
    b"\xe0\x80\xaf",                     // overlong '/'
    b"\x80",                             // stray continuation byte
    b"\xbf\xbf",                         // stray continuation bytes
    b"\xe2\x82",                         // truncated sequence
    b"\xf0\x9f\x98",                     // truncated emoji
    b"\xfe",                             // never valid
    b"\xff",                             // never valid
    b"\xcc\x81\xcc\x81\xcc\x81",         // stacked combining acute accents
    b"\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbd", // emoji with a skin-tone modifier
    b"\xef\xbc\xa1",                     // U+FF21 fullwidth 'A'
    b"\xe1\x85\x9f",                     // U+115F Hangul filler
    b"\xf3\xa0\x80\x81",                 // U+E0001 language tag
];

/// The overlong encoding of ASCII byte `c` in `width` (2, 3 or 4) bytes.
pub(crate) fn overlong(c: u8, width: usize) -> Vec<u8> {
    let (hi, lo) = (c >> 6, 0x80 | (c & 0x3f));
    match width {
        2 => vec![0xc0 | hi, lo],
        3 => vec![0xe0, 0x80 | hi, lo],
        _ => vec![0xf0, 0x80, 0x80 | hi, lo],
    }
}

/// `uw`: make a code point too wide: re-encode an ASCII byte as 2, 3 or 4 bytes.
pub(crate) fn widen(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    if data.is_empty() || ctx.room(data.len()) < 3 {
        return false;
    }
    let from = ctx.pos(data.len());
    let Some(p) = (from..data.len()).chain(0..from).find(|&i| data[i].is_ascii()) else {
        return false;
    };
    let wide = overlong(data[p], 2 + ctx.below(3));
    data.splice(p..p + 1, wide);
    true
}

/// `ui`: insert a funny code point (sometimes several of them).
pub(crate) fn insert_funny(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let seq = FUNNY[ctx.below(FUNNY.len())];
    let room = ctx.room(data.len()) / seq.len();
    if room == 0 {
        return false;
    }
    let times = if ctx.chance(1, 8) { ctx.small(room.min(256)) } else { 1 };
    let p = ctx.gap(data.len());
    data.splice(p..p, seq.iter().copied().cycle().take(seq.len() * times));
    true
}

#[cfg(test)]
mod tests {
    use super::super::ctx::testing::run;
    use super::*;

    #[test]
    fn overlong_encodings() {
        assert_eq!(overlong(b'a', 2), [0xc1, 0xa1]);
        assert_eq!(overlong(b'/', 2), [0xc0, 0xaf]);
        assert_eq!(overlong(b'/', 3), [0xe0, 0x80, 0xaf]);
        assert_eq!(overlong(0, 4), [0xf0, 0x80, 0x80, 0x80]);
    }

    #[test]
    fn widen_replaces_one_ascii_byte() {
        for seed in 0..50 {
            let (ok, out) = run(widen, b"\xff\xffA\xff", seed);
            assert!(ok);
            assert!([&[0xc1, 0x81][..], &[0xe0, 0x81, 0x81], &[0xf0, 0x80, 0x81, 0x81]]
                .iter()
                .any(|w| out == [&b"\xff\xff"[..], w, b"\xff"].concat()));
        }
        assert_eq!(run(widen, b"\xff\xfe", 1), (false, b"\xff\xfe".to_vec()));
    }

    #[test]
    fn inserts_funny_sequences() {
        for seed in 0..50 {
            let (ok, out) = run(insert_funny, b"", seed);
            assert!(ok);
            assert!(FUNNY.iter().any(|s| out.starts_with(s)));
            let (_, out) = run(insert_funny, b"text", seed);
            assert!(out.len() > 4);
        }
    }
}
