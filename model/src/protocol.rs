//! The fork-server protocol between the runtime (in the target) and `exec`.
//!
//! AFL-style: the target inherits a control pipe on [`CTL_FD`] (it reads) and
//! a status pipe on [`ST_FD`] (it writes). At `main` the runtime writes a
//! [`Hello`], then the module table: a count (4 bytes) and that many
//! [`ModuleRange`]s ([`MODULE_LEN`] bytes each); then for every run the client writes 4 bytes, the fork server
//! forks, writes the child's pid (4 bytes, little endian), waits for it and
//! writes its raw wait status (4 bytes). A stopped status (persistent
//! mode, `CARVE_PERSISTENT`) ends a run too: the child waits, and the next
//! run continues it under the same pid instead of forking.

/// File descriptor the fork server reads commands from.
pub const CTL_FD: i32 = 198;
/// File descriptor the fork server writes pids and statuses to.
pub const ST_FD: i32 = 199;
/// Magic number that opens the hello message ("CRVF").
pub const HELLO_MAGIC: u32 = 0x4352_5646;
/// Version of this protocol.
pub const PROTOCOL_VERSION: u32 = 3;
/// Size of the hello message on the wire.
pub const HELLO_LEN: usize = 16;

/// The first message of the fork server: who it is and what it instruments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hello {
    pub version: u32,
    /// Instrumented edges: function entries plus branch outcomes.
    pub edges: u32,
    /// Of those, the outcomes of conditional branches and switches.
    pub branches: u32,
}

impl Hello {
    pub fn encode(&self) -> [u8; HELLO_LEN] {
        let mut out = [0u8; HELLO_LEN];
        out[0..4].copy_from_slice(&HELLO_MAGIC.to_le_bytes());
        out[4..8].copy_from_slice(&self.version.to_le_bytes());
        out[8..12].copy_from_slice(&self.edges.to_le_bytes());
        out[12..16].copy_from_slice(&self.branches.to_le_bytes());
        out
    }

    /// Decodes a hello; `None` when the magic is wrong (not our runtime).
    pub fn decode(bytes: &[u8; HELLO_LEN]) -> Option<Hello> {
        let word = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        (word(0) == HELLO_MAGIC).then(|| Hello { version: word(4), edges: word(8), branches: word(12) })
    }
}

/// Most modules the runtime keeps in its table.
pub const MAX_MODULES: usize = 4096;
/// Size of one [`ModuleRange`] on the wire.
pub const MODULE_LEN: usize = 12;

/// Where one instrumented module's counters sit in the map: `functions`
/// function-entry counters from `base`, then `edges - functions` branch
/// outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ModuleRange {
    pub base: u32,
    pub functions: u32,
    pub edges: u32,
}

impl ModuleRange {
    pub fn encode(&self) -> [u8; MODULE_LEN] {
        let mut out = [0u8; MODULE_LEN];
        out[0..4].copy_from_slice(&self.base.to_le_bytes());
        out[4..8].copy_from_slice(&self.functions.to_le_bytes());
        out[8..12].copy_from_slice(&self.edges.to_le_bytes());
        out
    }

    pub fn decode(bytes: &[u8; MODULE_LEN]) -> ModuleRange {
        let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        ModuleRange { base: word(0), functions: word(4), edges: word(8) }
    }
}

/// AFL++'s side of the same fork-server protocol, spoken when `afl-fuzz`
/// (or `afl-showmap`, `afl-tmin`) starts the target: the hello is one
/// 4-byte status word of option bits instead of [`Hello`], and the module
/// table is not sent. Runs are then the same: 4 bytes in, pid and wait
/// status out.
pub mod afl {
    /// The options word is valid.
    pub const OPT_ENABLED: u32 = 0x8000_0001;
    /// The word carries the map size the target writes into.
    pub const OPT_MAPSIZE: u32 = 0x4000_0000;
    /// The largest map size the word can carry (2^23).
    pub const MAX_MAP_SIZE: u32 = (0x00ff_fffe >> 1) + 1;

    /// The hello of a target whose counters fill the first `map_size`
    /// bytes of the map.
    pub fn hello(map_size: u32) -> u32 {
        let size = map_size.clamp(2, MAX_MAP_SIZE);
        OPT_ENABLED | OPT_MAPSIZE | ((size - 1) << 1)
    }

    /// The map size a hello announces, as `afl-fuzz` reads it; `None`
    /// when the word announces none.
    pub fn map_size(hello: u32) -> Option<u32> {
        let announced = hello & OPT_ENABLED == OPT_ENABLED && hello & OPT_MAPSIZE == OPT_MAPSIZE;
        announced.then(|| ((hello & 0x00ff_fffe) >> 1) + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_round_trips_and_rejects_foreign_magic() {
        let h = Hello { version: PROTOCOL_VERSION, edges: 1234, branches: 1000 };
        assert_eq!(Hello::decode(&h.encode()), Some(h));
        let mut bad = h.encode();
        bad[0] ^= 1;
        assert_eq!(Hello::decode(&bad), None);
        let m = ModuleRange { base: 7, functions: 3, edges: 40 };
        assert_eq!(ModuleRange::decode(&m.encode()), m);
    }

    #[test]
    fn afl_hello_announces_the_map_size_afl_fuzz_reads_back() {
        for size in [2, 64, 12_345, 1 << 16, afl::MAX_MAP_SIZE] {
            assert_eq!(afl::map_size(afl::hello(size)), Some(size));
        }
        // Bits AFL++ reads as other options stay clear.
        assert_eq!(afl::hello(1 << 16) & 0x3f00_0000, 0);
        assert_eq!(afl::map_size(0), None);
    }
}
