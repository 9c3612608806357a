use super::*;

/// `input` with `at..end` replaced by `text`, its length fields fixed.
fn spliced(input: &[u8], at: usize, end: usize, text: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    out.splice(at..end, text.iter().copied());
    fix(input, &mut out, &[Splice { at, end, len: text.len() }]);
    out
}

fn find(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).position(|w| w == needle).unwrap()
}

/// PNG-like: a signature, then chunks of a 4-byte big-endian length, a
/// 4-byte type, the data and a 4-byte checksum; the last chunk is empty.
/// The checksum is a constant: no program checks it.
fn png(text: &[u8]) -> Vec<u8> {
    chunks(text, |_| *b"\xde\xad\xbe\xef")
}

/// A real PNG's chunks: the checksum is the CRC-32 of type and data,
/// big-endian.
fn real(text: &[u8]) -> Vec<u8> {
    chunks(text, |bytes| crc32fast::hash(bytes).to_be_bytes())
}

fn chunks(text: &[u8], sum: impl Fn(&[u8]) -> [u8; 4]) -> Vec<u8> {
    let mut v = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [(&b"IHDR"[..], &b"0123456789abc"[..]), (b"tEXt", text), (b"IEND", b"")] {
        v.extend((data.len() as u32).to_be_bytes());
        v.extend(kind);
        v.extend(data);
        v.extend(sum(&[kind, data].concat()));
    }
    v
}

#[test]
fn a_chunk_s_length_follows_its_data() {
    let input = png(b"Title\0a picture");
    let at = find(&input, b"a picture");
    let out = spliced(&input, at, at + 9, b"a much longer caption");
    assert_eq!(out, png(b"Title\0a much longer caption"));
    let out = spliced(&input, at, at + 9, b"a");
    assert_eq!(out, png(b"Title\0a"));
}

/// examples/tlv's format: "TLV\1", then records of a type byte, a 16-bit
/// big-endian length and the value; nested here: an entry holds a key
/// length byte, the key and records of its own.
#[test]
fn type_length_value_records_and_records_inside_them_follow() {
    let inner = |v: &[u8]| [&b"\x07\x00"[..], &[v.len() as u8], v, b"\x08\x00\x02zz"].concat();
    let record = |t: u8, v: &[u8]| [&[t, 0, v.len() as u8][..], v].concat();
    let file =
        |title: &[u8], v: &[u8]| [&b"TLV\x01"[..], &record(1, title), &record(2, &inner(v)), &record(5, b"")].concat();
    let input = file(b"inventory", b"apples");
    let at = find(&input, b"inventory");
    assert_eq!(spliced(&input, at, at + 9, b"inv"), file(b"inv", b"apples"));
    let at = find(&input, b"apples");
    assert_eq!(spliced(&input, at, at + 6, b"pears and plums"), file(b"inventory", b"pears and plums"));
}

/// RIFF-like: a header whose little-endian size counts the rest, and
/// boxes whose size counts their own 8-byte header (MP4's way).
#[test]
fn a_header_s_total_and_boxes_that_count_their_header_follow() {
    let boxed = |kind: &[u8], data: &[u8]| [&((data.len() + 8) as u32).to_be_bytes()[..], kind, data].concat();
    let file = |name: &[u8]| {
        let body = [&b"WAVE"[..], &boxed(b"fmt ", b"\x01\x00\x02\x00"), &boxed(b"name", name)].concat();
        [&b"RIFF"[..], &(body.len() as u32).to_le_bytes(), &body].concat()
    };
    let input = file(b"a short one");
    let at = find(&input, b"a short one");
    assert_eq!(spliced(&input, at, at + 11, b"longer than it was"), file(b"longer than it was"));
}

/// Text has no chain of records, and a binary input whose numbers do not
/// tile it to its end is left as it is; so is a field a value is written
/// over, and a length the field cannot hold.
#[test]
fn what_is_no_chain_of_records_is_left_alone() {
    let text = b"<?xml version=\"1.0\"?>\n<doc a=\"1\">\n  <item>one</item>\n  <item>two</item>\n</doc>\n";
    let at = find(text, b"one");
    assert_eq!(spliced(text, at, at + 3, b"three"), [&text[..at], b"three", &text[at + 3..]].concat());
    let tail = b"\x00\x05hello\x00\x03abc!";
    let at = find(tail, b"hello");
    assert_eq!(spliced(tail, at, at + 5, b"hi"), b"\x00\x05hi\x00\x03abc!", "one byte past the chain's end");
    let input = png(b"caption");
    let field = find(&input, b"tEXt") - 4;
    let out = spliced(&input, field, field + 11, b"\x00\x00\x00\x02tEXtca");
    assert_eq!(&out[field..field + 4], b"\x00\x00\x00\x02", "the value written over the field stays");
    let small = [&b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04"[..], b"abcd", b"\x00\x04wxyz"].concat();
    let at = find(&small, b"abcd");
    let long = vec![b'x'; 70_000];
    assert_eq!(&spliced(&small, at, at + 4, &long)[8..10], b"\x00\x04", "70,000 does not fit in two bytes");
}

/// Several values lifted at once: each record's field moves by what was
/// spliced before it, and changes by what was spliced inside it.
#[test]
fn several_splices_move_and_resize_their_fields() {
    let input = png(b"Title\0a picture");
    let (a, b) = (find(&input, b"0123"), find(&input, b"picture"));
    let mut out = input.clone();
    out.splice(b..b + 7, b"pic".iter().copied());
    out.splice(a..a + 4, b"012345".iter().copied());
    let splices = [Splice { at: a, end: a + 4, len: 6 }, Splice { at: b, end: b + 7, len: 3 }];
    fix(&input, &mut out, &splices);
    let mut expected = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [(&b"IHDR"[..], &b"012345456789abc"[..]), (b"tEXt", b"Title\0a pic"), (b"IEND", b"")] {
        expected.extend((data.len() as u32).to_be_bytes());
        expected.extend(kind);
        expected.extend(data);
        expected.extend(b"\xde\xad\xbe\xef");
    }
    assert_eq!(out, expected);
}

/// Of the examples' seeds, tlv's are chains of records and no other is
/// (text, CSV, scripts, hexdump's binary samples).
#[test]
fn the_examples_seeds_are_chains_where_they_hold_records() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut seen = 0;
    for example in std::fs::read_dir(&examples).unwrap().map(|e| e.unwrap().path()) {
        let Ok(seeds) = std::fs::read_dir(example.join("seeds")) else { continue };
        for seed in seeds.map(|e| e.unwrap().path()) {
            let input = std::fs::read(&seed).unwrap();
            let chains = first_chains(&input, 0, input.len());
            let tlv = example.ends_with("tlv");
            assert_eq!(!chains.is_empty(), tlv, "{}: {chains:?}", seed.display());
            if tlv {
                assert_eq!(
                    (chains.len(), chains[0].fields[0].at, chains[0].fields[0].width),
                    (1, 5, 2),
                    "{}",
                    seed.display()
                );
            }
            seen += 1;
        }
    }
    assert!(seen > 30, "{seen} seeds");
}

/// A real PNG's chunks: a change of
/// a chunk's data, of its length or not, gets the chunk's CRC rewritten;
/// the other chunks' stay. A CRC the change is written over stays the
/// change's.
#[test]
fn a_chunk_s_crc_follows_its_data() {
    let input = real(b"Title\0a picture");
    let checked = |input: &[u8]| first_chains(input, 0, input.len())[0].check.is_some();
    assert!(checked(&input));
    assert!(!checked(&png(b"Title\0a picture")), "a constant trailer is no checksum");
    let at = find(&input, b"picture");
    assert_eq!(spliced(&input, at, at + 7, b"puzzle!"), real(b"Title\0a puzzle!"), "the same length");
    assert_eq!(spliced(&input, at, at + 7, b"photograph"), real(b"Title\0a photograph"));
    let crc = find(&input, b"IEND") - 8;
    let out = spliced(&input, at, crc + 4, b"pic\x01\x02\x03\x04");
    assert_eq!(&out[out.len() - 16..out.len() - 12], b"\x01\x02\x03\x04", "{out:?}");
}

/// Bytes inserted where a chunk's data meets its type or its CRC are the
/// data's: its length counts them and its CRC covers them.
#[test]
fn bytes_inserted_at_a_record_s_ends_are_its_own() {
    let input = real(b"Title\0pic");
    let start = find(&input, b"Title");
    assert_eq!(spliced(&input, start, start, b">>"), real(b">>Title\0pic"));
    let end = start + 9;
    assert_eq!(spliced(&input, end, end, b"ture"), real(b"Title\0picture"));
}

/// An archive-like directory: "PACK", a table of 4-byte little-endian
/// offsets, one per entry, then the entries ('E', a name, a NUL). The
/// table ends where the first entry starts.
fn pack(names: &[&[u8]]) -> Vec<u8> {
    let start = 4 + 4 * names.len();
    let mut offsets = Vec::new();
    let mut entries = Vec::new();
    for name in names {
        offsets.extend(((start + entries.len()) as u32).to_le_bytes());
        entries.extend([&b"E"[..], name, b"\0"].concat());
    }
    [&b"PACK"[..], &offsets, &entries].concat()
}

#[test]
fn offsets_past_a_resized_entry_follow_it() {
    let input = pack(&[b"alpha", b"op", b"zed"]);
    let at = find(&input, b"op");
    assert_eq!(spliced(&input, at, at + 2, b"administrator"), pack(&[b"alpha", b"administrator", b"zed"]));
    let at = find(&input, b"alpha");
    assert_eq!(spliced(&input, at, at + 5, b"a"), pack(&[b"a", b"op", b"zed"]));
    // Bytes inserted where an entry starts are that entry's: its offset
    // stays, the next ones move.
    let at = find(&input, b"Eop");
    let expected = [&b"PACK\x10\0\0\0\x17\0\0\0\x1e\0\0\0"[..], b"Ealpha\0", b"Ex\0Eop\0", b"Ezed\0"].concat();
    assert_eq!(spliced(&input, at, at, b"Ex\0"), expected);
}

/// A table of records that hold an offset and a size (big-endian, 2
/// bytes each, a record every 8 bytes, as an icon file's directory): the
/// offsets follow what is spliced before their entries, the sizes what
/// is spliced inside them.
#[test]
fn a_directory_of_records_holding_offsets_and_sizes_follows() {
    let file = |a: &[u8], b: &[u8]| {
        let start = 4 + 2 * 8;
        let record = |at: usize, len: usize| {
            [&b"\x01\x02"[..], &(at as u16).to_be_bytes(), &(len as u16).to_be_bytes(), b"\0\0"].concat()
        };
        [&b"ICNS"[..], &record(start, a.len()), &record(start + a.len(), b.len()), a, b].concat()
    };
    let input = file(b"first image", b"second");
    let at = find(&input, b"first image");
    assert_eq!(spliced(&input, at, at + 5, b"1st"), file(b"1st image", b"second"));
    let at = find(&input, b"second");
    assert_eq!(spliced(&input, at, at + 6, b"the second one"), file(b"first image", b"the second one"));
}

/// An icon file (ICO) of two images: a 6-byte header, then a 16-byte
/// record per image whose size and offset are 4 bytes, little-endian, at
/// 8 and 12; the offsets are not at multiples of 4.
#[test]
fn an_icon_file_s_directory_follows_its_images() {
    let ico = |images: &[&[u8]]| {
        let mut out = [&[0u8, 0, 1, 0][..], &(images.len() as u16).to_le_bytes()].concat();
        let mut at = 6 + 16 * images.len();
        for image in images {
            out.extend([16, 16, 0, 0, 1, 0, 32, 0]);
            out.extend((image.len() as u32).to_le_bytes());
            out.extend((at as u32).to_le_bytes());
            at += image.len();
        }
        [out, images.concat()].concat()
    };
    let input = ico(&[b"(\0\0\0 first bitmap", b"(\0\0\0 second bitmap"]);
    let at = find(&input, b"first");
    let out = spliced(&input, at, at + 5, b"the very first");
    assert_eq!(out, ico(&[b"(\0\0\0 the very first bitmap", b"(\0\0\0 second bitmap"]));
    // Bytes inserted where the second image starts are the second's: the
    // first keeps its size.
    let at = find(&input, b"(\0\0\0 second");
    let out = spliced(&input, at, at, b">>");
    assert_eq!(out, ico(&[b"(\0\0\0 first bitmap", b">>(\0\0\0 second bitmap"]));
}

/// What is no offset table is left alone: text; numbers that rise but do
/// not end where the first entry starts; one offset alone. So is an
/// offset a value is written over, and one whose entry a splice starts
/// before and ends after.
#[test]
fn what_is_no_offset_table_is_left_alone() {
    assert_eq!(offsets::table(b"PACK 16 23 26 Ealpha Eop Ezed"), vec![]);
    // Eight bytes between the table and the first entry.
    let loose = [&b"PACK\x18\0\0\0\x1f\0\0\0\x22\0\0\0--------"[..], b"Ealpha\0Eop\0Ezed\0"].concat();
    assert_eq!(offsets::table(&loose), vec![], "the first entry is not where the table ends");
    assert_eq!(offsets::table(&pack(&[b"alpha"])), vec![], "one offset alone");
    let falling = [&b"PACK\x10\0\0\0\x17\0\0\0\x11\0\0\0"[..], b"Ealpha\0Eop\0Ezed\0"].concat();
    assert_eq!(offsets::table(&falling), vec![], "a third value lower than the second");
    assert_eq!(offsets::table(&pack(&[b"alpha", b"op", b"zed"])).len(), 3);
    let input = pack(&[b"alpha", b"op", b"zed"]);
    let at = find(&input, b"op");
    let out = spliced(&input, 8, at + 2, b"\x20\0\0\0rest");
    assert_eq!(&out[8..12], b"\x20\0\0\0", "the value written over the offset stays");
    let zed = find(&input, b"Ezed");
    let out = spliced(&input, zed - 2, zed + 2, b"");
    assert_eq!(&out[4..16], &input[4..16], "a splice across the third entry's start moves nothing after it");
}

/// No seed of the examples has an offset table (text, CSV, scripts,
/// hexdump's binary samples, tlv's records).
#[test]
fn no_example_seed_has_an_offset_table() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut seen = 0;
    for example in std::fs::read_dir(&examples).unwrap().map(|e| e.unwrap().path()) {
        let Ok(seeds) = std::fs::read_dir(example.join("seeds")) else { continue };
        for seed in seeds.map(|e| e.unwrap().path()) {
            let input = std::fs::read(&seed).unwrap();
            assert_eq!(offsets::table(&input), vec![], "{}", seed.display());
            seen += 1;
        }
    }
    assert!(seen > 30, "{seen} seeds");
}

/// A chain of three records or more is taken over numbers inside one of
/// its records that look like an offset table: a PNG's text chunk holding
/// three rising words that end where the first points keeps them as they
/// were, and the chunk's length follows.
#[test]
fn a_chain_of_records_is_taken_over_a_table_inside_a_record() {
    let text = |tail: &[u8]| {
        let words: Vec<u8> = [54u32, 60, 66].iter().flat_map(|v| v.to_le_bytes()).collect();
        [&b"k"[..], &words, tail].concat()
    };
    let input = png(&text(b"ghijklmnopqrstuv"));
    assert_eq!(offsets::table(&input).len(), 3, "the words are a table by themselves");
    let at = find(&input, b"ghij");
    assert_eq!(spliced(&input, at, at + 4, b"gh"), png(&text(b"ghklmnopqrstuv")));
}
