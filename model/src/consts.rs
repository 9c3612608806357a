//! Constants shared by the pass, the runtime and the bridge (no `std`: the
//! runtime compiles this file too).

/// Size of the shared-memory edge map in bytes (AFL-compatible: 64 KiB of
/// 8-bit hit counters).
pub const MAP_SIZE: usize = 1 << 16;
