//! The runtime entry points the probes call: one table, shared by every
//! probe module. Their definitions live in `runtime/src/abi.rs`.

/// `void __carve_register_module(uint8_t **area, uint32_t edges, uint32_t branches)`:
/// called by each module's constructor; sets `*area` to the module's slice
/// of the coverage map.
pub const REGISTER_MODULE: &str = "__carve_register_module";
/// `void __carve_main_entry(int *argc, char ***argv)`: called first thing in
/// `main` (null pointers when `main` takes no arguments); starts the fork
/// server when asked to, and may replace the command line of each run.
pub const MAIN_ENTRY: &str = "__carve_main_entry";
/// `uint8_t __carve_dummy_map[MAP_SIZE]`: where counters go before the
/// module is registered.
pub const DUMMY_MAP: &str = "__carve_dummy_map";
/// Per-module (internal) pointer to the module's slice of the map.
pub const AREA: &str = "__carve_area";
/// Per-module (internal) constructor that registers the module.
pub const MODULE_CTOR: &str = "__carve_module_ctor";
/// Prefix of everything the instrumentation adds; such functions are never
/// instrumented themselves.
pub const PREFIX: &str = "__carve_";
/// Priority of the registration constructor: before any user constructor.
pub const CTOR_PRIORITY: u64 = 1;
