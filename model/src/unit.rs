//! Carved calls as the tools see them: a decoded snapshot, its outcome, and
//! the unit-test file (snapshot records plus a metadata record), which the
//! runtime can replay as it is.

pub use crate::encoding::{
    binary_bytes, binary_value, fits_binary, json_escaped, percent_encoded, sql_quoted, sql_unquoted, Encoding, Within,
};
use crate::encoding::{trimmed, up_to_nul};
use crate::snapshot::*;
use serde::{Deserialize, Serialize};

/// A carved call: the function, its arguments and the memory it could reach.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Snapshot {
    pub function: u32,
    pub name: String,
    pub flags: u32,
    pub raw_pointers: u32,
    pub args: Vec<Arg>,
    pub objects: Vec<(ObjectHead, Vec<u8>)>,
    pub relocs: Vec<Reloc>,
}

/// How a call ended, as recorded or replayed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CallOutcome {
    /// The return value's bits (0 for `void`).
    pub ret: u64,
    pub returns_value: bool,
    /// The return value is a pointer (compare null-ness only).
    #[serde(default)]
    pub returns_pointer: bool,
    /// Map slots hit during the call (its dynamic extent), sorted.
    pub edges: Vec<u32>,
}

/// What the tools add to a unit: where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Meta {
    pub function: String,
    /// The program the call was carved from.
    pub program: String,
    /// The system input of the carving run.
    pub system_input: Vec<u8>,
    /// Position of the call among the carved calls of that run.
    pub call_index: u32,
    /// The file that stood for `@@` in the carving run, and what it held:
    /// replays recreate it, so calls that open it by name find it.
    #[serde(default)]
    pub input_path: String,
    #[serde(default)]
    pub input_content: Vec<u8>,
    /// The content was the carving run's stdin (no `@@`); otherwise stdin
    /// was empty.
    #[serde(default)]
    pub input_on_stdin: bool,
    /// The program's arguments in the carving run (`@@` for the input
    /// file). Replays start the program with them, `@@` being `/dev/null`:
    /// a host that loads the instrumented library only on its way to the
    /// input (Python running a driver script) needs them; a program built
    /// with carve-clang replays before its `main` reads any.
    #[serde(default)]
    pub program_args: Vec<String>,
    /// The parameters found by mapping: parts of the call whose values
    /// occur in the system input.
    #[serde(default)]
    pub params: Vec<Param>,
}

/// Where a parameter lives in a unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Site {
    /// An integer argument.
    Arg { index: u16, size: u8 },
    /// Bytes of an object (a string: up to its NUL, which is kept).
    Bytes { object: u32, offset: u64, len: u64, nul: bool },
    /// What was left to read from a stream object.
    Stream { object: u32 },
    /// The carving run's input file (the `@@` file, or stdin): what a
    /// replayed `main` reads. Its bytes are the value, NULs included.
    InputFile,
    /// A word `main`'s command line does not have yet: object `word`
    /// (zeros as carved), which a value that is not empty puts at `slot`
    /// of the argv array `argv` (the words from there on move up one, and
    /// `argc` grows by one). It lifts as a blank and the word, at the end
    /// of the test's command line (which ends before `slot`).
    NewWord { argv: u32, word: u32, slot: u32 },
}

/// A parameter's value, as a unit generator proposes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Value {
    Int(i64),
    Bytes(Vec<u8>),
}

impl Value {
    /// How the program sees it, written into the system input: decimal
    /// text for integers; for strings the bytes up to their first NUL.
    pub fn text(&self) -> Vec<u8> {
        match self {
            Value::Int(v) => v.to_string().into_bytes(),
            Value::Bytes(b) => up_to_nul(b).to_vec(),
        }
    }
}

/// Longest text a [`Encoding::Length`] value may resize its occurrence to.
pub const MAX_LENGTH: i64 = 4096;

/// A parameter: a site of the unit and every place of the system input
/// where its value occurs (byte offset, length).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    pub site: Site,
    pub encoding: Encoding,
    pub occurrences: Vec<(u64, u64)>,
    /// The value as it appears in the input.
    pub original: Vec<u8>,
    /// Bytes a new value cannot hold and still be lifted (a newline in the
    /// command line of a test that carries one; see
    /// `lifter::unliftable_bytes`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<u8>,
    /// Bytes past a string's NUL that a new value may grow into: an argv
    /// word, whose size the program never sees, can get longer (`-v` can
    /// become `--help`). 0 for everything else.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub room: u32,
}

impl Param {
    /// How `value` stands in the system input here: the input file's
    /// bytes whole, a new word after a blank (nothing when it is empty),
    /// a binary integer as its `width` bytes (the occurrence's length, so
    /// a lift leaves the input's length as it was), anything else as
    /// [`Value::text`].
    pub fn text(&self, value: &Value) -> Vec<u8> {
        if let (Encoding::Binary { width, big_endian }, Value::Int(n)) = (self.encoding, value) {
            return binary_bytes(*n, width, big_endian);
        }
        match (&self.site, value) {
            (_, Value::Bytes(b)) if matches!(self.encoding, Encoding::Digits { .. }) => digits_text(b, self.encoding),
            (_, Value::Bytes(b)) if matches!(self.encoding, Encoding::Sign { .. }) => sign_text(b, self.encoding),
            // (A quoted literal that is none is written as it is, and never
            // lifted: see `liftable`.)
            (_, Value::Bytes(b))
                if matches!(self.encoding, Encoding::Percent | Encoding::Json | Encoding::Quoted { .. }) =>
            {
                self.encoding.write_string(b).unwrap_or_else(|| value.text())
            }
            (Site::InputFile, Value::Bytes(b)) => b.clone(),
            // A block of binary bytes (no string: no NUL ends it) is
            // written whole, zeros and all.
            (Site::Bytes { nul: false, .. }, Value::Bytes(b)) if self.encoding == Encoding::Raw => b.clone(),
            (Site::NewWord { .. }, _) => {
                let word = value.text();
                if word.is_empty() {
                    word
                } else {
                    [&b" "[..], &word].concat()
                }
            }
            _ => value.text(),
        }
    }

    /// Whether `value` can stand in the system input as this parameter's
    /// encoding says: a digit array holds digits (0 to 9) only, a sign
    /// field 0 or 1, a length
    /// is 0 to [`MAX_LENGTH`], a binary integer fits its width (as
    /// unsigned or as signed: see [`fits_binary`]). A value that cannot is
    /// counted as unliftable, never run.
    pub fn liftable(&self, value: &Value) -> bool {
        match (self.encoding, value) {
            (Encoding::Binary { width, .. }, Value::Int(n)) => fits_binary(*n, width),
            (Encoding::Binary { .. }, Value::Bytes(_)) => false,
            (Encoding::Digits { ascii: false, .. }, Value::Bytes(b)) => b.iter().all(|&d| d <= 9),
            (Encoding::Digits { ascii: true, .. }, Value::Bytes(b)) => b.iter().all(u8::is_ascii_digit),
            (Encoding::Length, Value::Int(n)) => (0..=MAX_LENGTH).contains(n),
            (Encoding::Sign { .. }, Value::Bytes(b)) => sign_field(b).is_some(),
            (Encoding::Sign { .. }, Value::Int(_)) => false,
            (Encoding::Length, _) => false,
            (Encoding::Json, Value::Bytes(b)) => std::str::from_utf8(trimmed(b)).is_ok(),
            (Encoding::Quoted { within }, Value::Bytes(b)) => sql_unquoted(up_to_nul(b))
                .is_some_and(|inside| within != Within::Json || std::str::from_utf8(&inside).is_ok()),
            _ => true,
        }
    }

    /// How `value` stands in the system input in place of `current`, the
    /// bytes of one of its occurrences there: a length resizes them (see
    /// [`Encoding::Length`]), anything else is [`Param::text`].
    pub fn text_over(&self, value: &Value, current: &[u8]) -> Vec<u8> {
        match (self.encoding, value) {
            (Encoding::Length, Value::Int(n)) => resized(current, (*n).clamp(0, MAX_LENGTH) as usize),
            _ => self.text(value),
        }
    }

    /// The integer an argument's parameter had in the input: the decimal
    /// text read, or the binary bytes read in their order, zero-extended
    /// (the mapping takes a value narrower than its argument only when it
    /// is not negative) and taken as the argument's signed type. `None`
    /// when the original does not read as an integer.
    pub fn original_int(&self) -> Option<i64> {
        match self.encoding {
            Encoding::Binary { width, big_endian } => {
                if self.original.len() != usize::from(width) {
                    return None;
                }
                let n = binary_value(&self.original, big_endian);
                let size = match self.site {
                    Site::Arg { size, .. } => size,
                    _ => width,
                };
                Some(match size {
                    1 => n as u8 as i8 as i64,
                    2 => n as u16 as i16 as i64,
                    4 => n as u32 as i32 as i64,
                    _ => n as i64,
                })
            }
            _ => std::str::from_utf8(&self.original).ok()?.trim().parse().ok(),
        }
    }

    /// `written`, bytes of the input this parameter's value is written as,
    /// for a person to read: text as it is (what is not UTF-8 replaced),
    /// a binary integer as its value and its bytes (`48 (00 30)`).
    pub fn shown(&self, written: &[u8]) -> String {
        match self.encoding {
            Encoding::Binary { big_endian, .. } => {
                let hex: Vec<String> = written.iter().map(|b| format!("{b:02x}")).collect();
                format!("{} ({})", binary_value(written, big_endian), hex.join(" "))
            }
            _ => String::from_utf8_lossy(written).into_owned(),
        }
    }

    /// The bytes the site holds for the original value where they are
    /// not its text: a digit array's digits as it keeps them (raw or
    /// ASCII, in its order), a sign field's value (1 for the mark, else
    /// 0, little-endian over the site's bytes). `None` for the others.
    pub fn held(&self) -> Option<Vec<u8>> {
        let Site::Bytes { len, .. } = self.site else { return None };
        match self.encoding {
            Encoding::Digits { reversed, ascii } => {
                let raw = |c: u8| if ascii { c } else { c.wrapping_sub(b'0') };
                let mut held: Vec<u8> = self.original.iter().map(|&c| raw(c)).collect();
                if reversed {
                    held.reverse();
                }
                Some(held)
            }
            Encoding::Sign { .. } => {
                let mut held = vec![0; len as usize];
                if let Some(first) = held.first_mut() {
                    *first = u8::from(!self.original.is_empty());
                }
                Some(held)
            }
            _ => None,
        }
    }

    /// A digit array's byte values no new value may take: 10 to 255, or
    /// anything but `0` to `9` for ASCII digits.
    pub fn not_digits(ascii: bool) -> Vec<u8> {
        (0..=255u8).filter(|&b| if ascii { !b.is_ascii_digit() } else { b > 9 }).collect()
    }
}

/// `text` cut to `len` bytes, or repeated from its start up to them (an
/// empty text grows by `0`s).
pub fn resized(text: &[u8], len: usize) -> Vec<u8> {
    if text.is_empty() {
        return vec![b'0'; len];
    }
    text.iter().copied().cycle().take(len).collect()
}

/// The text of sign field `b` (see [`Encoding::Sign`]): its mark when
/// the field is not 0.
fn sign_text(b: &[u8], encoding: Encoding) -> Vec<u8> {
    match encoding {
        Encoding::Sign { mark } if b.iter().any(|&x| x != 0) => vec![mark],
        _ => Vec::new(),
    }
}

/// The sign a sign field's bytes hold, as the program reads them: `false`
/// for plus (0), `true` for minus (1); `None` for any other value, which
/// no text in front of the digits makes.
pub fn sign_field(b: &[u8]) -> Option<bool> {
    match b.split_first() {
        Some((&first, rest)) if first <= 1 && rest.iter().all(|&x| x == 0) => Some(first == 1),
        _ => None,
    }
}

/// The text of digit array `b` (see [`Encoding::Digits`]; a byte that is
/// no digit is written as `?`).
fn digits_text(b: &[u8], encoding: Encoding) -> Vec<u8> {
    let Encoding::Digits { reversed, ascii } = encoding else { return b.to_vec() };
    let digit = |d: u8| match ascii {
        false if d <= 9 => b'0' + d,
        true if d.is_ascii_digit() => d,
        _ => b'?',
    };
    let mut t: Vec<u8> = b.iter().map(|&d| digit(d)).collect();
    if reversed {
        t.reverse();
    }
    t
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A unit test: a snapshot, its recorded outcome (when the call returned)
/// and its metadata.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Unit {
    pub snapshot: Snapshot,
    pub outcome: Option<CallOutcome>,
    pub meta: Meta,
}

impl Snapshot {
    /// The patch record (header and payload) that turns `base`, as a
    /// replay restored it, into this snapshot: every argument, the objects
    /// that differ, all relocations. `None` when the two are not the same
    /// call (another function, or other numbers of arguments or objects).
    pub fn patch_over(&self, base: &Snapshot) -> Option<Vec<u8>> {
        if self.function != base.function
            || self.args.len() != base.args.len()
            || self.objects.len() != base.objects.len()
        {
            return None;
        }
        let args: Vec<u64> = self.args.iter().map(|a| a.value).collect();
        let changed: Vec<(u32, &ObjectHead, &[u8])> = self
            .objects
            .iter()
            .zip(&base.objects)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .map(|(i, ((h, bytes), _))| (i as u32, h, bytes.as_slice()))
            .collect();
        let mut payload = Vec::new();
        encode_patch(&mut payload, &args, changed.into_iter(), &self.relocs);
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        push_record(&mut out, KIND_PATCH, &payload);
        Some(out)
    }

    pub fn head(&self) -> SnapshotHead {
        SnapshotHead { function: self.function, flags: self.flags, raw_pointers: self.raw_pointers }
    }

    pub fn truncated(&self) -> bool {
        self.flags & FLAG_TRUNCATED != 0
    }

    pub fn bytes(&self) -> usize {
        self.objects.iter().map(|(_, b)| b.len()).sum()
    }

    pub fn encode_payload(&self) -> Vec<u8> {
        let mut s = Vec::new();
        let objects = self.objects.iter().map(|(h, b)| (h, b.as_slice()));
        encode_snapshot(&mut s, self.head(), self.name.as_bytes(), &self.args, objects, &self.relocs);
        s
    }

    pub fn decode_payload(payload: &[u8]) -> Result<Snapshot, DecodeError> {
        let mut r = Reader::new(payload);
        let function = r.u32()?;
        let n = r.u16()? as usize;
        let name = String::from_utf8_lossy(r.take(n)?).into_owned();
        let flags = r.u32()?;
        let raw_pointers = r.u32()?;
        let nargs = r.u16()? as usize;
        let args = (0..nargs).map(|_| Arg::decode(&mut r)).collect::<Result<Vec<_>, _>>()?;
        let nobj = r.u32()? as usize;
        let mut objects = Vec::with_capacity(nobj.min(1 << 16));
        for _ in 0..nobj {
            let h = ObjectHead::decode(&mut r)?;
            let bytes = r.take(usize::try_from(h.len).map_err(|_| DecodeError::Truncated)?)?.to_vec();
            objects.push((h, bytes));
        }
        let nrel = r.u32()? as usize;
        let relocs = (0..nrel).map(|_| Reloc::decode(&mut r)).collect::<Result<Vec<_>, _>>()?;
        for x in &relocs {
            let in_range = if x.object == RELOC_IN_ARG {
                (x.offset as usize) < args.len()
            } else {
                (x.object as usize) < objects.len()
            };
            let target_ok = x.target_kind != RELOC_OBJECT || (x.target as usize) < objects.len();
            if !in_range || !target_ok {
                return Err(DecodeError::Malformed("relocation out of range"));
            }
        }
        if !r.is_empty() {
            return Err(DecodeError::Malformed("trailing bytes"));
        }
        Ok(Snapshot { function, name, flags, raw_pointers, args, objects, relocs })
    }
}

impl CallOutcome {
    pub fn encode_payload(&self) -> Vec<u8> {
        let mut s = Vec::new();
        let kind = if self.returns_pointer { RET_POINTER } else { u8::from(self.returns_value) };
        encode_outcome(&mut s, self.ret, kind, self.edges.iter().copied());
        s
    }

    pub fn decode_payload(payload: &[u8]) -> Result<CallOutcome, DecodeError> {
        let mut r = Reader::new(payload);
        let ret = r.u64()?;
        let flag = r.u8()?;
        let (returns_value, returns_pointer) = (flag != RET_NONE, flag == RET_POINTER);
        let n = r.u32()? as usize;
        let edges = (0..n).map(|_| r.u32()).collect::<Result<Vec<_>, _>>()?;
        Ok(CallOutcome { ret, returns_value, returns_pointer, edges })
    }
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Appends one record (header and payload) to `out`.
pub fn push_record(out: &mut Vec<u8>, kind: u32, payload: &[u8]) {
    out.extend_from_slice(&header(kind, payload));
    out.extend_from_slice(payload);
}

/// Why a file is not a unit.
#[derive(Debug, thiserror::Error)]
pub enum UnitError {
    #[error("{0}")]
    Decode(DecodeError),
    #[error("no snapshot record")]
    NoSnapshot,
    #[error("metadata: {0}")]
    Meta(String),
}

impl From<DecodeError> for UnitError {
    fn from(e: DecodeError) -> Self {
        UnitError::Decode(e)
    }
}

impl std::error::Error for DecodeError {}

impl Unit {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        push_record(&mut out, KIND_SNAPSHOT, &self.snapshot.encode_payload());
        if let Some(o) = &self.outcome {
            push_record(&mut out, KIND_OUTCOME, &o.encode_payload());
        }
        let meta = serde_json::to_vec(&self.meta).expect("metadata serialises");
        push_record(&mut out, KIND_META, &meta);
        out
    }

    /// Decodes a unit file, or a raw runtime snapshot file (no metadata).
    pub fn decode(mut bytes: &[u8]) -> Result<Unit, UnitError> {
        let mut unit = Unit::default();
        let mut seen = false;
        while !bytes.is_empty() {
            let (kind, payload, rest) = next_record(bytes)?;
            match kind {
                KIND_SNAPSHOT if !seen => {
                    unit.snapshot = Snapshot::decode_payload(payload)?;
                    seen = true;
                }
                KIND_OUTCOME => unit.outcome = Some(CallOutcome::decode_payload(payload)?),
                KIND_META => unit.meta = serde_json::from_slice(payload).map_err(|e| UnitError::Meta(e.to_string()))?,
                _ => return Err(UnitError::Decode(DecodeError::Malformed("unknown or repeated record"))),
            }
            bytes = rest;
        }
        if !seen {
            return Err(UnitError::NoSnapshot);
        }
        if unit.meta.function.is_empty() {
            unit.meta.function = unit.snapshot.name.clone();
        }
        Ok(unit)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// What a digit array and a sign field hold for their text; how a sign
    /// is written.
    #[test]
    fn digits_and_signs_hold_their_text_as_the_object_does() {
        let param = |encoding, original: &[u8], len| Param {
            site: Site::Bytes { object: 0, offset: 0, len, nul: false },
            encoding,
            occurrences: vec![(0, original.len() as u64)],
            original: original.to_vec(),
            excluded: Vec::new(),
            room: 0,
        };
        let digits = |reversed, ascii| Encoding::Digits { reversed, ascii };
        assert_eq!(param(digits(false, false), b"120", 3).held(), Some(vec![1, 2, 0]));
        assert_eq!(param(digits(true, false), b"120", 3).held(), Some(vec![0, 2, 1]));
        assert_eq!(param(digits(true, true), b"120", 3).held(), Some(b"021".to_vec()));
        let sign = Encoding::Sign { mark: b'_' };
        assert_eq!(param(sign, b"_", 4).held(), Some(vec![1, 0, 0, 0]));
        assert_eq!(param(sign, b"", 4).held(), Some(vec![0; 4]));
        assert_eq!(param(Encoding::Raw, b"ab", 2).held(), None);
        let p = param(sign, b"", 4);
        assert_eq!(
            (p.text(&Value::Bytes(vec![1, 0, 0, 0])), p.text(&Value::Bytes(vec![0; 4]))),
            (b"_".to_vec(), vec![])
        );
        assert_eq!(sign_field(&[1, 0, 0, 0]), Some(true));
        assert_eq!(sign_field(&[0, 1, 0, 0]), None);
    }

    /// A unit with every kind of record and parameter.
    pub(crate) fn sample() -> Unit {
        Unit {
            snapshot: Snapshot {
                function: 42,
                name: "parse".into(),
                flags: 0,
                raw_pointers: 1,
                args: vec![Arg { kind: ARG_PTR, size: 8, value: 0x1000 }, Arg { kind: ARG_INT, size: 4, value: 7 }],
                objects: vec![
                    (ObjectHead { kind: OBJ_HEAP, global: NO_GLOBAL, addr: 0x1000, size: 16, len: 16 }, vec![1; 16]),
                    (ObjectHead { kind: OBJ_GLOBAL, global: 3, addr: 0x5000, size: 8, len: 8 }, vec![2; 8]),
                ],
                relocs: vec![
                    Reloc { object: RELOC_IN_ARG, offset: 0, target_kind: RELOC_OBJECT, target: 0, addend: 0 },
                    Reloc { object: 0, offset: 8, target_kind: RELOC_OBJECT, target: 1, addend: 4 },
                ],
            },
            outcome: Some(CallOutcome { ret: 5, returns_value: true, returns_pointer: false, edges: vec![3, 9] }),
            meta: Meta {
                function: "parse".into(),
                program: "/bin/x".into(),
                system_input: b"in".to_vec(),
                call_index: 0,
                input_path: "/tmp/x/input".into(),
                input_content: b"in".to_vec(),
                input_on_stdin: true,
                program_args: vec!["-q".into(), "@@".into()],
                params: vec![Param {
                    site: Site::Arg { index: 1, size: 4 },
                    encoding: Encoding::Decimal,
                    occurrences: vec![(0, 1)],
                    original: b"7".to_vec(),
                    excluded: Vec::new(),
                    room: 0,
                }],
            },
        }
    }

    #[test]
    fn units_round_trip() {
        let u = sample();
        assert_eq!(Unit::decode(&u.encode()).unwrap(), u);
    }

    #[test]
    fn every_truncation_and_corruption_is_an_error_not_a_panic() {
        let bytes = sample().encode();
        // Records end here; a file cut there is a shorter but whole file.
        let mut ends = vec![];
        let mut rest = &bytes[..];
        while !rest.is_empty() {
            rest = next_record(rest).unwrap().2;
            ends.push(bytes.len() - rest.len());
        }
        for cut in 0..bytes.len() {
            let whole = ends.contains(&cut);
            assert_eq!(Unit::decode(&bytes[..cut]).is_ok(), whole, "cut at {cut}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(Unit::decode(&b).is_err(), "flip at {i} went unnoticed");
        }
        let mut wrong = bytes.clone();
        wrong[4] = 9;
        assert!(matches!(Unit::decode(&wrong), Err(UnitError::Decode(DecodeError::Version(9)))));
    }
}

#[cfg(test)]
mod encoding_tests {
    use super::*;

    #[test]
    fn values_are_written_in_the_encoding_of_their_place() {
        assert_eq!(percent_encoded(b"green sofa-bed/2&x"), b"green+sofa-bed%2F2%26x");
        assert_eq!(
            json_escaped("red\u{1}chair \"é\" \\ 😀".as_bytes()),
            br#"red\u0001chair \"\u00e9\" \\ \ud83d\ude00"#
        );
        let p = |encoding| Param {
            site: Site::Bytes { object: 0, offset: 0, len: 3, nul: true },
            encoding,
            occurrences: vec![(0, 3)],
            original: b"abc".to_vec(),
            excluded: Vec::new(),
            room: 0,
        };
        // A NUL inside is written (the program gets the bytes past it);
        // NULs at the end shorten the string.
        assert_eq!(p(Encoding::Percent).text(&Value::Bytes(b"a b\0junk\0\0".to_vec())), b"a+b%00junk");
        assert_eq!(p(Encoding::Json).text(&Value::Bytes(b"\0\0x\0".to_vec())), br"\u0000\u0000x");
        assert_eq!(p(Encoding::Raw).text(&Value::Bytes(b"a b\0junk".to_vec())), b"a b");
        assert!(p(Encoding::Json).liftable(&Value::Bytes("é".as_bytes().to_vec())));
        assert!(!p(Encoding::Json).liftable(&Value::Bytes(vec![0xff, 0x41])));
        // A literal's inside, written as the place of the inside has it.
        let quoted = p(Encoding::Quoted { within: Within::Percent });
        assert_eq!(quoted.text(&Value::Bytes(b"'it''s'\0".to_vec())), b"it%27s");
        assert!(quoted.liftable(&Value::Bytes(b"'it''s'\0".to_vec())));
        assert!(!quoted.liftable(&Value::Bytes(b"'it's'".to_vec())));
        assert!(!quoted.liftable(&Value::Bytes(b"it".to_vec())));
        let quoted = p(Encoding::Quoted { within: Within::Json });
        assert!(!quoted.liftable(&Value::Bytes(vec![b'\'', 0xff, b'\''])));
    }

    fn binary(width: u8, big_endian: bool, size: u8, original: &[u8]) -> Param {
        Param {
            site: Site::Arg { index: 1, size },
            encoding: Encoding::Binary { width, big_endian },
            occurrences: vec![(5, u64::from(width))],
            original: original.to_vec(),
            excluded: Vec::new(),
            room: 0,
        }
    }

    #[test]
    fn a_binary_integer_is_written_as_its_width_in_its_byte_order_and_read_back() {
        let be = binary(2, true, 4, &[0x00, 0x09]);
        let le = binary(2, false, 4, &[0x09, 0x00]);
        assert_eq!((be.original_int(), le.original_int()), (Some(9), Some(9)));
        assert_eq!(be.text(&Value::Int(48)), [0x00, 0x30]);
        assert_eq!(le.text(&Value::Int(48)), [0x30, 0x00]);
        for n in [0, 1, 48, 255, 256, 0x7fff, 0x8000, 0xffff] {
            let p = Param { original: be.text(&Value::Int(n)), ..be.clone() };
            assert!(be.liftable(&Value::Int(n)) && p.original_int() == Some(n), "{n}");
            let p = Param { original: le.text(&Value::Int(n)), ..le.clone() };
            assert_eq!(p.original_int(), Some(n), "{n}");
        }
        // As wide as the argument: the argument's signed value.
        let whole = binary(4, false, 4, &[0xfe, 0xff, 0xff, 0xff]);
        assert_eq!(whole.original_int(), Some(-2));
        assert_eq!(whole.text(&Value::Int(-2)), whole.original);
        assert_eq!(binary(8, true, 8, &[0xff; 8]).original_int(), Some(-1));
        assert_eq!(binary(1, true, 1, &[0x80]).original_int(), Some(-128));
        // Bytes that are not the width read as nothing.
        assert_eq!(binary(2, true, 4, &[0x30]).original_int(), None);
        assert_eq!(be.shown(&[0x00, 0x30]), "48 (00 30)");
        assert_eq!(le.shown(&[0x30, 0x00]), "48 (30 00)");
    }

    #[test]
    fn a_binary_integer_lifts_only_within_its_width_signed_or_unsigned() {
        for (width, lo, hi) in [(1u8, -128i64, 255i64), (2, -32768, 65535), (4, i32::MIN as i64, u32::MAX as i64)] {
            let p = binary(width, true, 8, &vec![1; width as usize]);
            for n in [lo, -1, 0, hi] {
                assert!(p.liftable(&Value::Int(n)), "{n} in {width} bytes");
                assert_eq!(p.text(&Value::Int(n)).len(), width as usize);
            }
            assert!(!p.liftable(&Value::Int(lo - 1)) && !p.liftable(&Value::Int(hi + 1)), "{width}");
        }
        // A signed value is its two's complement, in the byte order.
        assert_eq!(binary(2, true, 4, &[0, 1]).text(&Value::Int(-2)), [0xff, 0xfe]);
        assert_eq!(binary(1, false, 4, &[1]).text(&Value::Int(-128)), [0x80]);
        let wide = binary(8, false, 8, &[1; 8]);
        assert!(wide.liftable(&Value::Int(i64::MIN)) && wide.liftable(&Value::Int(i64::MAX)));
        assert!(!wide.liftable(&Value::Bytes(vec![1; 8])), "no bytes stand for an integer");
    }
}
