//! Constants shared by the pass, the runtime and the bridge (no `std`: the
//! runtime compiles this file too).

/// Size of the shared-memory edge map in bytes (AFL-compatible: 64 KiB of
/// 8-bit hit counters).
pub const MAP_SIZE: usize = 1 << 16;

/// Exit statuses of a replay that did not get to call the function.
pub const REPLAY_EXIT_UNREADABLE: i32 = 97;
pub const REPLAY_EXIT_MALFORMED: i32 = 98;
pub const REPLAY_EXIT_NOT_REPLAYABLE: i32 = 99;
