//! Constants shared by the pass, the runtime and the bridge (no `std`: the
//! runtime compiles this file too).

/// Size of the shared-memory edge map in bytes (AFL-compatible: 64 KiB of
/// 8-bit hit counters).
pub const MAP_SIZE: usize = 1 << 16;

/// Bytes the bridge's segment holds past the map. Its first four (a
/// little-endian `u32`) are where a module registered after the fork server
/// started (a library `dlopen`ed by a run) announces the end of the map's
/// used part, so that the bridge, which clears and reads only the part the
/// hello's modules use, takes its counters in from that run on.
pub const MAP_TAIL: usize = 64;

/// AFL's hit-count buckets: 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+ (0
/// for none), each a bit of its own.
pub const fn hit_bucket(hits: u8) -> u8 {
    match hits {
        0 => 0,
        1 => 1,
        2 => 2,
        3 => 4,
        4..=7 => 8,
        8..=15 => 16,
        16..=31 => 32,
        32..=127 => 64,
        128..=255 => 128,
    }
}

/// Exit statuses of a replay that did not get to call the function.
pub const REPLAY_EXIT_UNREADABLE: i32 = 97;
pub const REPLAY_EXIT_MALFORMED: i32 = 98;
pub const REPLAY_EXIT_NOT_REPLAYABLE: i32 = 99;

/// The entry point every instrumented `main` calls (`__carve_main_entry`,
/// see `instrument/src/abi.rs`): its name in a binary says the binary
/// carries the runtime.
pub const MAIN_ENTRY: &str = "__carve_main_entry";
