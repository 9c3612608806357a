//! Mapping (seed 001 §3.2, §4.2): the parts of a carved call whose values
//! occur in the system input become parameters, with every offset where
//! they occur. Integer arguments are looked for as decimal text (at number
//! boundaries), or else as binary bytes (see `binary.rs` for when), strings reachable from the arguments as bytes (up to their
//! NUL or the object's end), streams as the text left to read, numbers
//! held as digit arrays (see `digits.rs`) and their signs (`sign.rs`), counts beside pointers as
//! lengths (see `counts.rs`); for `main`, also the run's input file,
//! which it has yet to open and read.

use model::shell;
use model::snapshot::*;
use model::unit::{Encoding, Param, Site, Unit};

/// Shortest string worth mapping: shorter ones match anywhere by chance.
const MIN_STRING: usize = 2;
/// Bytes an argv word that stands in the test's command line may grow by
/// (a whole object the program sizes by its NUL only): room for a long
/// option such as `--help`.
const ARGV_ROOM: u32 = 8;
/// Most parameters kept per unit.
const MAX_PARAMS: usize = 32;
/// Largest input file taken as a parameter of `main`.
const MAX_FILE: usize = 64 << 10;

/// The parameters of `unit` against the system `input` (the test's bytes,
/// command line included when it carries one).
pub fn map(unit: &Unit, input: &[u8]) -> Vec<Param> {
    let s = &unit.snapshot;
    let mut out = Vec::new();
    let views = Views::new(input);
    for (i, a) in s.args.iter().enumerate() {
        // `main`'s argc is how many words the command line has: a number
        // of the input equal to it is a coincidence (a new argc would
        // send main past its argv).
        if a.kind != ARG_INT || a.size > 8 || unit.meta.function == "main" {
            continue;
        }
        let v = signed(a.value, a.size);
        let text = v.to_string().into_bytes();
        let framing = views.framing();
        let occ: Vec<(u64, u64)> = numbers(input, &text)
            .into_iter()
            .filter(|&(at, len)| !framing.iter().any(|&(a, b)| (at as usize) < b && a < (at + len) as usize))
            .collect();
        if !occ.is_empty() {
            out.push(Param {
                site: Site::Arg { index: i as u16, size: a.size },
                encoding: Encoding::Decimal,
                occurrences: occ,
                original: text,
                excluded: Vec::new(),
                room: 0,
            });
        } else if let Some(p) = crate::binary::binary_int(i as u16, a.size, v, input) {
            out.push(p);
        }
    }
    // Strings pointer arguments point at (into the middle of an object too).
    for r in s.relocs.iter().filter(|r| r.object == RELOC_IN_ARG && r.target_kind == RELOC_OBJECT) {
        let Some((h, bytes)) = s.objects.get(r.target as usize) else { continue };
        if h.kind == OBJ_STREAM || r.addend == 0 || r.addend as usize >= bytes.len() {
            continue;
        }
        if let Some(p) = string_param(r.target, r.addend as usize, bytes, input, &views) {
            out.push(p);
        }
    }
    // Strings: every recorded object's leading text; streams: their rest.
    let words = line_words(input);
    for (o, (h, bytes)) in s.objects.iter().enumerate() {
        // An argv word of the test's command line: where it stands.
        if let Some((text, occ)) = (h.kind == OBJ_ARGV).then(|| command_word(bytes, &words)).flatten() {
            out.push(Param {
                site: Site::Bytes { object: o as u32, offset: 0, len: text.len() as u64, nul: true },
                encoding: Encoding::Raw,
                occurrences: occ,
                original: text.to_vec(),
                excluded: Vec::new(),
                room: ARGV_ROOM,
            });
            continue;
        }
        match h.kind {
            OBJ_HEAP if bytes.iter().all(|&d| d <= 9) => {
                if let Some(p) = crate::digits::whole_heap_object(o as u32, bytes, input) {
                    out.push(p);
                }
            }
            OBJ_STREAM if !bytes.is_empty() => {
                let occ = find_all(input, bytes);
                if !occ.is_empty() {
                    out.push(Param {
                        site: Site::Stream { object: o as u32 },
                        encoding: Encoding::Raw,
                        occurrences: occ,
                        original: bytes.clone(),
                        excluded: Vec::new(),
                        room: 0,
                    });
                }
            }
            OBJ_HEAP | OBJ_STACK | OBJ_ARGV | OBJ_GLOBAL if !bytes.is_empty() => {
                let (len, nul) = match bytes.iter().position(|&b| b == 0) {
                    Some(n) => (n, true),
                    None => (bytes.len(), false),
                };
                let text = &bytes[..len];
                if len < MIN_STRING || !text.iter().all(|&b| string_byte(b)) {
                    if let Some(p) = binary_param(o as u32, bytes, input) {
                        out.push(p);
                    }
                    continue;
                }
                if let Some((encoding, occ)) = views.find(text) {
                    out.push(Param {
                        site: Site::Bytes { object: o as u32, offset: 0, len: len as u64, nul },
                        encoding,
                        occurrences: occ,
                        original: text.to_vec(),
                        excluded: encoding.unwritable(),
                        room: 0,
                    });
                }
            }
            _ => {}
        }
    }
    if out.len() < MAX_PARAMS {
        let inside = crate::digits::inside(&s.objects, input, &out);
        out.extend(inside);
    }
    if out.len() < MAX_PARAMS {
        let signs = crate::sign::signs(s, input, &out);
        out.extend(signs);
    }
    if let Some(p) = input_file_param(unit, input) {
        out.insert(0, p);
    }
    crate::counts::beside_pointers(unit, &mut out);
    out.truncate(MAX_PARAMS);
    out
}

/// The input as it stands, and as the program may have decoded it before
/// a string reached the call (see `encoded.rs`), decoded on first need.
struct Views<'a> {
    input: &'a [u8],
    decoded: std::cell::OnceCell<[crate::encoded::Decoded; 2]>,
    regions: std::cell::OnceCell<Vec<(usize, usize, Encoding)>>,
    framing: std::cell::OnceCell<Vec<(usize, usize)>>,
}

impl<'a> Views<'a> {
    fn new(input: &'a [u8]) -> Views<'a> {
        Views {
            input,
            decoded: std::cell::OnceCell::new(),
            regions: std::cell::OnceCell::new(),
            framing: std::cell::OnceCell::new(),
        }
    }

    /// An HTTP request's framing numbers (see `encoded::http_framing`).
    fn framing(&self) -> &[(usize, usize)] {
        self.framing.get_or_init(|| crate::encoded::http_framing(self.input))
    }

    /// Where `text` occurs: as it is, or else encoded one way (JSON
    /// escapes first: a JSON body is also valid percent-encoding).
    fn find(&self, text: &[u8]) -> Option<(Encoding, Vec<(u64, u64)>)> {
        let occ = find_all(self.input, text);
        if let Some(&(first, _)) = occ.first() {
            // In an encoded part of a request, a value is written encoded.
            let regions = self.regions.get_or_init(|| crate::encoded::http_regions(self.input));
            let encoding_at = |at: u64, len: u64| {
                let (at, end) = (at as usize, (at + len) as usize);
                regions.iter().find(|r| r.0 <= at && end <= r.1).map_or(Encoding::Raw, |r| r.2)
            };
            let encoding = encoding_at(first, text.len() as u64);
            let occ = occ.into_iter().filter(|&(at, len)| encoding_at(at, len) == encoding).collect();
            return Some((encoding, occ));
        }
        let decoded =
            self.decoded.get_or_init(|| [crate::encoded::json(self.input), crate::encoded::percent(self.input)]);
        let found = decoded.iter().find_map(|d| {
            let occ = d.find(text);
            (!occ.is_empty()).then_some((d.encoding, occ))
        });
        found.or_else(|| self.find_quoted(text))
    }

    /// Where the inside of `text`, an SQL string literal an application
    /// built by quoting (`'it''s'`), occurs, as it is or encoded.
    fn find_quoted(&self, text: &[u8]) -> Option<(Encoding, Vec<(u64, u64)>)> {
        let inside = model::unit::sql_unquoted(text).filter(|t| t.len() >= MIN_STRING)?;
        let (encoding, occ) = self.find(&inside)?;
        Some((Encoding::Quoted { within: model::unit::Within::of(encoding)? }, occ))
    }
}

/// A byte a string the mapping looks for may hold: printable ASCII, a tab
/// or a newline, or a byte of UTF-8 beyond ASCII.
pub(crate) fn string_byte(b: u8) -> bool {
    b == b'\t' || b == b'\n' || (0x20..0x7f).contains(&b) || b >= 0x80
}

/// Shortest block of binary bytes worth mapping: fewer match by chance.
const MIN_BINARY: usize = 4;

/// Shortest leading part of a binary object mapped when the whole object
/// is not in the input, and the fewest bytes other than 0 it must hold.
const MIN_PREFIX: usize = 32;
const MIN_PREFIX_NONZERO: usize = 8;

/// A block of bytes that is no text (a binary format's record, a libFuzzer
/// harness's input) as a parameter, where the whole object occurs in the
/// input: a buffer the program read its input into. Else its longest
/// leading part that does, of [`MIN_PREFIX`] bytes or more
/// ([`MIN_PREFIX_NONZERO`] of them not 0): an array the program filled
/// with records it read, with room left after them (coreutils' `who`
/// copies each utmp record it keeps into an array grown as it goes).
fn binary_param(object: u32, bytes: &[u8], input: &[u8]) -> Option<Param> {
    if bytes.len() < MIN_BINARY || bytes.iter().all(|&b| b == 0) {
        return None;
    }
    let mut occ = find_all(input, bytes);
    let mut len = bytes.len();
    if occ.is_empty() && bytes.len() > MIN_PREFIX {
        let same = |at: u64| input[at as usize..].iter().zip(bytes).take_while(|(a, b)| a == b).count();
        let starts = find_all(input, &bytes[..MIN_PREFIX]);
        len = starts.iter().map(|&(at, _)| same(at)).max()?;
        if bytes[..len].iter().filter(|&&b| b != 0).count() < MIN_PREFIX_NONZERO {
            return None;
        }
        occ = starts.into_iter().filter(|&(at, _)| same(at) >= len).map(|(at, _)| (at, len as u64)).collect();
    }
    (!occ.is_empty()).then(|| Param {
        site: Site::Bytes { object, offset: 0, len: len as u64, nul: false },
        encoding: Encoding::Raw,
        occurrences: occ,
        original: bytes[..len].to_vec(),
        excluded: Vec::new(),
        room: 0,
    })
}

/// `main`'s input file: the carving run's `@@` file or stdin, which is the
/// end of the system input (all of it, or what follows the command line).
fn input_file_param(unit: &Unit, input: &[u8]) -> Option<Param> {
    let content = &unit.meta.input_content;
    if unit.meta.function != "main" || content.is_empty() || content.len() > MAX_FILE || !input.ends_with(content) {
        return None;
    }
    Some(Param {
        site: Site::InputFile,
        encoding: Encoding::Raw,
        occurrences: vec![((input.len() - content.len()) as u64, content.len() as u64)],
        original: content.clone(),
        excluded: Vec::new(),
        room: 0,
    })
}

/// The text at `start` of an object's bytes (up to NUL or the end), as a
/// parameter when it is text and occurs in the input.
fn string_param(object: u32, start: usize, bytes: &[u8], input: &[u8], views: &Views<'_>) -> Option<Param> {
    let rest = &bytes[start..];
    let (len, nul) = match rest.iter().position(|&b| b == 0) {
        Some(n) => (n, true),
        None => (rest.len(), false),
    };
    let text = &rest[..len];
    if len < MIN_STRING || !text.iter().all(|&b| string_byte(b)) {
        return None;
    }
    let _ = input;
    let (encoding, occ) = views.find(text)?;
    Some(Param {
        site: Site::Bytes { object, offset: start as u64, len: len as u64, nul },
        encoding,
        occurrences: occ,
        original: text.to_vec(),
        excluded: encoding.unwritable(),
        room: 0,
    })
}

pub fn signed(v: u64, size: u8) -> i64 {
    match size {
        1 => v as u8 as i8 as i64,
        2 => v as u16 as i16 as i64,
        4 => v as u32 as i32 as i64,
        _ => v as i64,
    }
}

/// The words of the input's first line (the test carries its command
/// line), where they stand.
fn line_words(input: &[u8]) -> Vec<shell::Word> {
    shell::line_words(&input[..input.iter().position(|&b| b == b'\n').unwrap_or(input.len())])
}

/// An argv word that is a whole word of the command line: its text and
/// where the words that say it stand, quotes and backslashes included (a
/// lifted value replaces them and is written as its place needs). Any
/// length will do: a word is found where it stands, not by chance.
fn command_word<'a>(bytes: &'a [u8], words: &[shell::Word]) -> Option<(&'a [u8], Occurrences)> {
    let text = &bytes[..bytes.iter().position(|&b| b == 0)?];
    let occ: Occurrences =
        words.iter().filter(|w| w.text == text).map(|w| (w.start as u64, (w.end - w.start) as u64)).collect();
    (!text.is_empty() && !occ.is_empty()).then_some((text, occ))
}

/// Where a value occurs in the input: (offset, length) pairs.
type Occurrences = Vec<(u64, u64)>;

/// Non-overlapping occurrences of `needle` in `hay`.
pub(crate) fn find_all(hay: &[u8], needle: &[u8]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    if needle.is_empty() || needle.len() > hay.len() {
        return out;
    }
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        if &hay[i..i + needle.len()] == needle {
            out.push((i as u64, needle.len() as u64));
            i += needle.len();
        } else {
            i += 1;
        }
    }
    out
}

/// Occurrences of the decimal `text` that are whole numbers: no digit,
/// and for positive numbers no minus sign, right before; no digit right
/// after; not part of a name (see [`in_a_name`]).
pub(crate) fn numbers(hay: &[u8], text: &[u8]) -> Vec<(u64, u64)> {
    find_all(hay, text)
        .into_iter()
        .filter(|&(at, len)| {
            let (at, len) = (at as usize, len as usize);
            let before = at.checked_sub(1).map(|i| hay[i]);
            let after = hay.get(at + len).copied();
            let neg_ok = text[0] == b'-' || before != Some(b'-');
            let digit = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_digit());
            !digit(before) && !digit(after) && neg_ok && !in_a_name(hay, at, at + len)
        })
        .collect()
}

/// Whether `hay[at..end]` lies in a name: a run of letters, digits and
/// `_` that starts with a letter or `_` and holds two letters or more
/// (SQLite's fuzz corpus names its columns `Te0tSt00n0`: none of its
/// zeros is a number; nor is `p12p`'s). `x17`, `v2`, `10px` and dc's
/// `2p3p` keep their numbers.
fn in_a_name(hay: &[u8], at: usize, end: usize) -> bool {
    let part = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    let start = at - hay[..at].iter().rev().take_while(|b| part(b)).count();
    let stop = end + hay[end..].iter().take_while(|b| part(b)).count();
    let run = &hay[start..stop];
    let letters = run.iter().filter(|b| b.is_ascii_alphabetic()).count();
    !run[0].is_ascii_digit() && letters >= 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::unit::{Snapshot, Value, Within};

    fn unit(args: Vec<Arg>, objects: Vec<(ObjectHead, Vec<u8>)>) -> Unit {
        Unit { snapshot: Snapshot { args, objects, ..Snapshot::default() }, ..Unit::default() }
    }

    #[test]
    fn integers_map_to_whole_numbers_only() {
        let u = unit(
            vec![
                Arg { kind: ARG_INT, size: 4, value: 12 },
                Arg { kind: ARG_INT, size: 4, value: (-7i32) as u32 as u64 },
            ],
            vec![],
        );
        let p = map(&u, b"len 12\nx 112 120 -12\nneg -7\nTe12tID a_12_b ab12 x12 12p p12p\n");
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].occurrences, vec![(4, 2), (49, 2), (52, 2)], "not in a name");
        assert_eq!(p[1].occurrences, vec![(25, 2)]);
        assert_eq!(p[1].original, b"-7");
    }

    #[test]
    fn strings_and_streams_map_to_their_bytes() {
        let head = |kind, size| ObjectHead { kind, global: NO_GLOBAL, addr: 0x1000, size, len: size };
        let u = unit(
            vec![],
            vec![
                (head(OBJ_ARGV, 4), b"-f2\0".to_vec()),
                (head(OBJ_STREAM, 4), b"b,c\n".to_vec()),
                (head(OBJ_HEAP, 2), vec![1, 2]),
                (head(OBJ_HEAP, 4), b"a,b\0".to_vec()),
            ],
        );
        let p = map(&u, b"-d , -f2\na,b,c\n");
        assert_eq!(p.len(), 3, "{p:?}");
        assert_eq!(p[0].site, Site::Bytes { object: 0, offset: 0, len: 3, nul: true });
        assert_eq!(p[0].occurrences, vec![(5, 3)]);
        assert_eq!(p[1].site, Site::Stream { object: 1 });
        assert_eq!(p[1].occurrences, vec![(11, 4)]);
        // An argv word may grow; a heap string keeps its size.
        assert_eq!((p[0].room, p[2].room), (ARGV_ROOM, 0), "{p:?}");
    }

    #[test]
    fn main_s_input_file_is_its_first_parameter_and_the_end_of_the_input() {
        let mut u = unit(vec![Arg { kind: ARG_INT, size: 4, value: 2 }], vec![]);
        u.meta.input_content = b"x\ny\n".to_vec();
        let input = b"-f 2 @@\nx\ny\n";
        // Not main: no file parameter.
        assert_eq!(map(&u, input).len(), 1);
        u.meta.function = "main".into();
        let p = map(&u, input);
        // argc is no parameter of main, whatever the input holds.
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(
            (&p[0].site, &p[0].occurrences, &p[0].original[..]),
            (&Site::InputFile, &vec![(8, 4)], &b"x\ny\n"[..])
        );
        // A file that is not the input's end (another run's) is no parameter.
        assert!(map(&u, b"-f 2 @@\nother\n").is_empty());
    }

    #[test]
    fn argv_words_map_to_their_place_in_the_command_line_whatever_their_length() {
        let head = |size| ObjectHead { kind: OBJ_ARGV, global: NO_GLOBAL, addr: 0x1000, size, len: size };
        let u = unit(vec![], vec![(head(2), b",\0".to_vec()), (head(2), b"a\0".to_vec()), (head(3), b"-d\0".to_vec())]);
        let p = map(&u, b"-d , -f2 x-d\na,b,c -d\n");
        // "," is the second word (not the commas of the content); "a" is
        // no word of the command line, and too short to look for; "-d" is
        // the first word only.
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!((&p[0].original[..], &p[0].occurrences[..], p[0].room), (&b","[..], &[(3, 1)][..], ARGV_ROOM));
        assert_eq!((&p[1].original[..], &p[1].occurrences[..]), (&b"-d"[..], &[(0, 2)][..]));
    }

    #[test]
    fn a_quoted_argv_word_maps_to_the_whole_word_quotes_included() {
        let head = |size| ObjectHead { kind: OBJ_ARGV, global: NO_GLOBAL, addr: 0x1000, size, len: size };
        let u = unit(vec![], vec![(head(7), b"s/a b/\0".to_vec()), (head(5), b"/\\w/\0".to_vec())]);
        let line = b"-e 's/a b/' -e /\\\\w/ x\nbody\n";
        let p = map(&u, line);
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!((&p[0].original[..], &p[0].occurrences[..], p[0].room), (&b"s/a b/"[..], &[(3, 8)][..], ARGV_ROOM));
        assert_eq!((&p[1].original[..], &p[1].occurrences[..]), (&b"/\\w/"[..], &[(15, 5)][..]));
    }

    #[test]
    fn an_sql_literal_maps_to_its_inside_where_the_input_holds_it() {
        let heap = |size| ObjectHead { kind: OBJ_HEAP, global: NO_GLOBAL, addr: 0x1000, size, len: size };
        let strings: [&[u8]; 4] = [b"'it''s new'\0", b"'lamp'\0", b"'it's'\0", b"'sofa'\0"];
        let u = unit(vec![], strings.iter().map(|s| (heap(s.len() as u64), s.to_vec())).collect());
        let input = b"GET /count?name=it%27s+new&x=it's HTTP/1.1\r\nHost: lamp\r\n\r\n";
        let at = |frag: &[u8]| input.windows(frag.len()).position(|w| w == frag).unwrap() as u64;
        let ps = map(&u, input);
        let found: Vec<_> = ps.iter().map(|p| (p.encoding, p.occurrences.clone(), p.original.clone())).collect();
        // A malformed literal and one whose inside is not there map to
        // nothing.
        assert_eq!(
            found,
            [
                (Encoding::Quoted { within: Within::Percent }, vec![(at(b"it%27s+"), 10)], b"'it''s new'".to_vec()),
                (Encoding::Quoted { within: Within::Raw }, vec![(at(b"lamp"), 4)], b"'lamp'".to_vec()),
            ]
        );
    }

    #[test]
    fn a_binary_array_maps_by_the_records_it_holds_when_room_follows_them() {
        let heap = |size| ObjectHead { kind: OBJ_HEAP, global: NO_GLOBAL, addr: 0x1000, size, len: size };
        let record = |k: u8| -> Vec<u8> { (0..48u8).map(|i| if i % 3 == 0 { 0 } else { i ^ k }).collect() };
        let input: Vec<u8> = [record(1), record(2), record(3)].concat();
        // Records 2 and 3 copied, then room (zeros, or what the allocator
        // left); a block whose first 32 bytes are mostly 0 is no record.
        let mut array = [record(2), record(3)].concat();
        array.extend([0u8; 40]);
        let mut zeros = vec![0u8; 40];
        zeros[33] = 7;
        let u = unit(vec![], vec![(heap(array.len() as u64), array), (heap(40), zeros)]);
        let ps = map(&u, &input);
        assert_eq!(ps.len(), 1, "{ps:?}");
        assert_eq!(ps[0].site, Site::Bytes { object: 0, offset: 0, len: 96, nul: false });
        assert_eq!(ps[0].occurrences, [(48, 96)]);
        assert_eq!(ps[0].original, input[48..].to_vec());
    }

    #[test]
    fn digit_arrays_map_to_whole_numbers_in_either_order() {
        let heap = |size| ObjectHead { kind: OBJ_HEAP, global: NO_GLOBAL, addr: 0x1000, size, len: size };
        let u = unit(
            vec![],
            vec![
                (heap(3), vec![1, 2, 5]),
                (heap(2), vec![7, 4]),
                (heap(2), vec![3, 3]),
                (heap(1), vec![9]),
                (heap(4), vec![0, 0, 1, 2]),
            ],
        );
        let ps = map(&u, b"2 125 + 47 p 1250 k 33 12");
        let found: Vec<_> = ps.iter().map(|p| (p.site.clone(), p.encoding, p.occurrences.clone())).collect();
        let site = |object, len| Site::Bytes { object, offset: 0, len, nul: false };
        assert_eq!(
            found,
            [
                (site(0, 3), Encoding::Digits { reversed: false, ascii: false }, vec![(2, 3)]),
                (site(1, 2), Encoding::Digits { reversed: true, ascii: false }, vec![(8, 2)]),
                (site(2, 2), Encoding::Digits { reversed: false, ascii: false }, vec![(20, 2)]),
                (
                    Site::Bytes { object: 4, offset: 2, len: 2, nul: false },
                    Encoding::Digits { reversed: false, ascii: false },
                    vec![(23, 2)],
                ),
            ]
        );
        let p = &ps[1];
        assert_eq!(p.text(&Value::Bytes(vec![0, 9])), b"90");
        assert!(p.liftable(&Value::Bytes(vec![0, 9])) && !p.liftable(&Value::Bytes(vec![1, 10])));
        assert!(p.excluded.contains(&10) && !p.excluded.contains(&9));
        assert_eq!(ps[0].text(&Value::Bytes(vec![0, 0, 7])), b"007");
    }
}
