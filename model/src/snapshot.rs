//! The snapshot format: what the runtime writes when it carves a call, and
//! what it reads back to replay one. `core` only (the runtime compiles this
//! file too); the decoder never panics on bad input.
//!
//! A file is a sequence of records, each a 32-byte header (magic, version,
//! kind, payload length, FNV-1a checksum of the payload) and its payload,
//! little endian throughout. A carved call is a [`KIND_SNAPSHOT`] record,
//! followed, once the call returns, by a [`KIND_OUTCOME`] record.

pub const MAGIC: u32 = 0x5356_5243; // "CRVS"
pub const VERSION: u32 = 1;
pub const HEADER_LEN: usize = 32;
pub const KIND_SNAPSHOT: u32 = 1;
pub const KIND_OUTCOME: u32 = 2;

/// Argument kinds.
pub const ARG_INT: u8 = 0;
pub const ARG_PTR: u8 = 1;
pub const ARG_F32: u8 = 2;
pub const ARG_F64: u8 = 3;

/// Object kinds.
pub const OBJ_HEAP: u8 = 0;
pub const OBJ_STACK: u8 = 1;
pub const OBJ_GLOBAL: u8 = 2;
pub const OBJ_ARGV: u8 = 3;
/// A stdio stream (`FILE`): not its bytes but, in `ObjectHead::global`, its
/// mode ([`STREAM_READ`], [`STREAM_WRITE`]) and, as its bytes, what was left
/// to read from it.
pub const OBJ_STREAM: u8 = 4;
/// An open file descriptor of a regular file: `global` holds the
/// descriptor number (low 24 bits) and its `O_ACCMODE` (above); `addr` its
/// offset; the bytes are the file's path. Not a relocation target.
pub const OBJ_FD: u8 = 5;
/// The locale the call ran in (`setlocale(LC_ALL, NULL)`, as bytes), when
/// it is not "C".
pub const OBJ_LOCALE: u8 = 6;
pub const STREAM_READ: u32 = 1;
pub const STREAM_WRITE: u32 = 2;

/// How a call returned (the outcome record's flag byte).
pub const RET_NONE: u8 = 0;
pub const RET_VALUE: u8 = 1;
/// A pointer: its value differs between processes; only null-ness compares.
pub const RET_POINTER: u8 = 2;

/// Relocation targets.
pub const RELOC_OBJECT: u8 = 0;
pub const RELOC_FUNCTION: u8 = 1;
/// The carving thread's own handle (`pthread_self()`), which a program
/// may keep to tell its main thread (libxml2 does): the replaying thread's
/// handle is written there.
pub const RELOC_THREAD: u8 = 2;
/// The carving thread's kernel id in the owner field of a mutex it held
/// (glibc's `pthread_mutex_t`: lock word, count, owner, users): the
/// replaying thread's id is written in the low 4 bytes of the 8 at
/// `offset` (the owner; the users' count after it stays), so that a
/// recursive mutex the call holds (SQLite's connection mutex) is the
/// replaying thread's to take again rather than a lock that never frees.
pub const RELOC_TID: u8 = 3;
/// `Reloc::object` value meaning "the argument `offset`", not an object.
pub const RELOC_IN_ARG: u32 = u32::MAX;
/// `Object::global` value of objects that are not globals.
pub const NO_GLOBAL: u32 = u32::MAX;

/// Flags of a snapshot.
pub const FLAG_TRUNCATED: u32 = 1;

/// FNV-1a, 64 bits.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The header of a record with this payload.
pub fn header(kind: u32, payload: &[u8]) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[0..4].copy_from_slice(&MAGIC.to_le_bytes());
    h[4..8].copy_from_slice(&VERSION.to_le_bytes());
    h[8..12].copy_from_slice(&kind.to_le_bytes());
    h[16..24].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    h[24..32].copy_from_slice(&checksum(payload).to_le_bytes());
    h
}

/// Why bytes are not a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// Fewer bytes than the header or payload announces.
    Truncated,
    BadMagic,
    /// Written by another version of the format.
    Version(u32),
    BadChecksum,
    /// A field holds a value the format does not allow.
    Malformed(&'static str),
}

impl core::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DecodeError::Truncated => write!(f, "truncated"),
            DecodeError::BadMagic => write!(f, "not a snapshot (bad magic number)"),
            DecodeError::Version(v) => write!(f, "format version {v}, this build reads {VERSION}"),
            DecodeError::BadChecksum => write!(f, "checksum mismatch (corrupt)"),
            DecodeError::Malformed(what) => write!(f, "malformed: {what}"),
        }
    }
}

/// Splits the first record off `bytes`: `(kind, payload, rest)`.
pub fn next_record(bytes: &[u8]) -> Result<(u32, &[u8], &[u8]), DecodeError> {
    if bytes.len() < HEADER_LEN {
        return Err(DecodeError::Truncated);
    }
    let mut r = Reader::new(&bytes[..HEADER_LEN]);
    if r.u32()? != MAGIC {
        return Err(DecodeError::BadMagic);
    }
    let version = r.u32()?;
    if version != VERSION {
        return Err(DecodeError::Version(version));
    }
    let kind = r.u32()?;
    if r.u32()? != 0 {
        return Err(DecodeError::Malformed("reserved header field"));
    }
    let len = r.u64()?;
    let sum = r.u64()?;
    let rest = &bytes[HEADER_LEN..];
    if (rest.len() as u64) < len {
        return Err(DecodeError::Truncated);
    }
    let (payload, rest) = rest.split_at(len as usize);
    if checksum(payload) != sum {
        return Err(DecodeError::BadChecksum);
    }
    Ok((kind, payload, rest))
}

/// A bounds-checked little-endian reader.
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if self.bytes.len() < n {
            return Err(DecodeError::Truncated);
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    pub fn u16(&mut self) -> Result<u16, DecodeError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        let b = self.take(8)?;
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        Ok(u64::from_le_bytes(w))
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// Where encoded bytes go (a buffer in the runtime, a `Vec` in the tools).
pub trait Sink {
    fn put(&mut self, bytes: &[u8]);

    fn u8(&mut self, v: u8) {
        self.put(&[v]);
    }
    fn u16(&mut self, v: u16) {
        self.put(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.put(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.put(&v.to_le_bytes());
    }
}

/// One argument as recorded: its kind, its size in bytes and its bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arg {
    pub kind: u8,
    pub size: u8,
    pub value: u64,
}

/// The fixed part of an object record (its bytes follow it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectHead {
    pub kind: u8,
    /// Global id (registration order) or [`NO_GLOBAL`].
    pub global: u32,
    /// Address in the carved process.
    pub addr: u64,
    /// Size of the whole object.
    pub size: u64,
    /// Bytes recorded (at most `size`: the budget may cut an object).
    pub len: u64,
}

/// A pointer in recorded memory (or in an argument) and what it points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reloc {
    /// Object index, or [`RELOC_IN_ARG`].
    pub object: u32,
    /// Offset in the object (or the argument index).
    pub offset: u64,
    pub target_kind: u8,
    /// Object index or function id.
    pub target: u32,
    /// Offset into the target object.
    pub addend: u64,
}

impl Arg {
    pub fn encode(&self, s: &mut impl Sink) {
        s.u8(self.kind);
        s.u8(self.size);
        s.u64(self.value);
    }
    pub fn decode(r: &mut Reader<'_>) -> Result<Arg, DecodeError> {
        let a = Arg { kind: r.u8()?, size: r.u8()?, value: r.u64()? };
        if a.kind > ARG_F64 || a.size == 0 || a.size > 8 {
            return Err(DecodeError::Malformed("argument kind or size"));
        }
        Ok(a)
    }
}

impl ObjectHead {
    pub fn encode(&self, s: &mut impl Sink) {
        s.u8(self.kind);
        s.u32(self.global);
        s.u64(self.addr);
        s.u64(self.size);
        s.u64(self.len);
    }
    pub fn decode(r: &mut Reader<'_>) -> Result<ObjectHead, DecodeError> {
        let o = ObjectHead { kind: r.u8()?, global: r.u32()?, addr: r.u64()?, size: r.u64()?, len: r.u64()? };
        if o.kind > OBJ_LOCALE || (o.kind != OBJ_STREAM && o.len > o.size) {
            return Err(DecodeError::Malformed("object kind or length"));
        }
        Ok(o)
    }
}

impl Reloc {
    pub fn encode(&self, s: &mut impl Sink) {
        s.u32(self.object);
        s.u64(self.offset);
        s.u8(self.target_kind);
        s.u32(self.target);
        s.u64(self.addend);
    }
    pub fn decode(r: &mut Reader<'_>) -> Result<Reloc, DecodeError> {
        let x = Reloc { object: r.u32()?, offset: r.u64()?, target_kind: r.u8()?, target: r.u32()?, addend: r.u64()? };
        if x.target_kind > RELOC_TID {
            return Err(DecodeError::Malformed("relocation target kind"));
        }
        Ok(x)
    }
}

/// A record of [`KIND_META`]: JSON written by the tools (ignored by the
/// runtime).
pub const KIND_META: u32 = 3;
/// A record of [`KIND_PATCH`]: one try of a unit whose context a replay
/// fork server restored once. It holds every argument's bits, the objects
/// whose bytes changed (each a fresh copy: strings may change length) and
/// the whole relocation list, applied again over the changed places.
pub const KIND_PATCH: u32 = 4;

/// Writes a patch payload (see [`KIND_PATCH`]): `objects` are
/// `(index, head, bytes)` of the changed objects.
pub fn encode_patch<'a>(
    s: &mut impl Sink,
    args: &[u64],
    objects: impl ExactSizeIterator<Item = (u32, &'a ObjectHead, &'a [u8])>,
    relocs: &[Reloc],
) {
    s.u16(args.len() as u16);
    for &a in args {
        s.u64(a);
    }
    s.u32(objects.len() as u32);
    for (i, h, bytes) in objects {
        s.u32(i);
        h.encode(s);
        s.put(bytes);
    }
    s.u32(relocs.len() as u32);
    for r in relocs {
        r.encode(s);
    }
}

/// The fixed start of a snapshot payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotHead {
    /// Function id (the map slot of its entry counter).
    pub function: u32,
    pub flags: u32,
    /// Words that looked like pointers but point nowhere known.
    pub raw_pointers: u32,
}

/// Writes a snapshot payload: the one definition of its layout, used by the
/// runtime (carving) and the tools alike.
#[allow(clippy::too_many_arguments)]
pub fn encode_snapshot<'a>(
    s: &mut impl Sink,
    head: SnapshotHead,
    name: &[u8],
    args: &[Arg],
    objects: impl ExactSizeIterator<Item = (&'a ObjectHead, &'a [u8])>,
    relocs: &[Reloc],
) {
    let name = &name[..name.len().min(u16::MAX as usize)];
    s.u32(head.function);
    s.u16(name.len() as u16);
    s.put(name);
    s.u32(head.flags);
    s.u32(head.raw_pointers);
    s.u16(args.len() as u16);
    for a in args {
        a.encode(s);
    }
    s.u32(objects.len() as u32);
    for (h, bytes) in objects {
        h.encode(s);
        s.put(bytes);
    }
    s.u32(relocs.len() as u32);
    for r in relocs {
        r.encode(s);
    }
}

/// Writes an outcome payload: the return value, its kind (`RET_*`) and the
/// edges hit during the call.
pub fn encode_outcome(s: &mut impl Sink, ret: u64, ret_kind: u8, edges: impl ExactSizeIterator<Item = u32>) {
    s.u64(ret);
    s.u8(ret_kind);
    s.u32(edges.len() as u32);
    for e in edges {
        s.u32(e);
    }
}
