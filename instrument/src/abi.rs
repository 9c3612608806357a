//! The runtime entry points the probes call: one table, shared by every
//! probe module. Their definitions live in `runtime/src/abi.rs`.

/// `void __carve_register_module(uint8_t **area, uint32_t edges, uint32_t branches)`:
/// called by each module's constructor; sets `*area` to the module's slice
/// of the coverage map.
pub const REGISTER_MODULE: &str = "__carve_register_module";
/// `int __carve_main_entry(int *argc, char ***argv)`: called first thing in
/// `main` (null pointers when `main` takes no arguments); starts the fork
/// server when asked to, and may replace the command line of each run;
/// returns non-zero when the run carves (`main` then runs its copy).
pub const MAIN_ENTRY: &str = model::MAIN_ENTRY;
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
/// Prefixes of every runtime entry point (the probes' and the symbolic
/// clones'): a program exports them for the shared libraries it loads.
pub const RUNTIME_PREFIXES: [&str; 2] = [PREFIX, "__sym_"];
/// Priority of the registration constructor: before any user constructor.
pub const CTOR_PRIORITY: u64 = 1;
/// `uint8_t __carve_tracking`: non-zero while the runtime tracks calls and
/// allocations (carving); read at every function entry.
pub const TRACKING: &str = "__carve_tracking";
/// `uint64_t __carve_enter(uint8_t *area, uint32_t k, uint64_t *args,
/// uint32_t nargs, const uint8_t *kinds, uint64_t *frame, uint32_t nframe)`:
/// function `k` of the module whose map slice is `area` was entered; returns
/// a token for `__carve_leave` (0: nothing to do).
pub const ENTER: &str = "__carve_enter";
/// `void *__carve_copy_of(void *fp)`: what an indirect call in an
/// out-of-line copy calls (the copy of `*fp`'s function, or `fp`).
pub const COPY_OF: &str = "__carve_copy_of";
/// `void *__carve_copy_named(const char *name, struct { uint64_t gen; void
/// *found; } *cache, uint32_t sym)`: the out-of-line copy (`sym == 0`) or
/// symbolic clone of the function `name` is bound to in the process, when
/// another instrumented module has one; null otherwise. A call in a copy
/// or clone to a function of another module goes through it when the
/// static link did not bind the call to that module's copy (an
/// instrumented shared library's function, called from the program).
pub const COPY_NAMED: &str = "__carve_copy_named";
/// `void __carve_leave(uint64_t token, uint64_t ret, uint32_t has_ret)`.
pub const LEAVE: &str = "__carve_leave";
/// `void __carve_on_alloc(void *p, uint64_t size)`: after malloc & co.
pub const ON_ALLOC: &str = "__carve_on_alloc";
/// `void __carve_on_realloc(void *old, void *new, uint64_t size)`.
pub const ON_REALLOC: &str = "__carve_on_realloc";
/// `void __carve_on_free(void *p)`: before free.
pub const ON_FREE: &str = "__carve_on_free";
/// `void __carve_on_string(char *s)`: after strdup & co.
pub const ON_STRING: &str = "__carve_on_string";
/// `void __carve_on_getline(char *old, char **line, size_t *n)`.
pub const ON_GETLINE: &str = "__carve_on_getline";
/// `void __carve_on_stream(FILE *f)`: after fopen & co.
pub const ON_STREAM: &str = "__carve_on_stream";
