//! The runtime's C entry points, once: each one's name, machine types and,
//! for a probe or a symbolic model of libc, the libc functions whose calls
//! the pass hands to it. The pass declares and dispatches from this table;
//! the runtime's tests check that `runtime/src` exports exactly these
//! (with these types) and that `runtime/include/carve_rt.h`, which says
//! what each one does, declares exactly these. No `std`: the runtime
//! compiles this file too.

/// A machine type of an argument or a result. Symbolic shadows are `I32`
/// expression ids (0: concrete); values travel as `I64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Void,
    I32,
    I64,
    Ptr,
}

/// One entry point of `libcarve_rt.a`.
#[derive(Debug)]
pub struct Entry {
    pub id: Id,
    pub name: &'static str,
    pub params: &'static [Ty],
    pub ret: Ty,
    /// The libc functions whose calls the pass hands to this entry point
    /// (a probe after an allocation, a symbolic model after the call).
    /// Where the entry takes a `kind`, a function's place here is its
    /// number when the model says so ([`sym_model`]).
    pub libc: &'static [&'static str],
}

/// The table: `Id = "symbol" (params) -> result [libc functions];`.
macro_rules! entries {
    ($($id:ident = $name:literal ($($p:ident),*) -> $ret:ident $([$($libc:literal),* $(,)?])?;)*) => {
        /// An entry point, by its place in [`ENTRIES`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Id {
            $($id,)*
        }

        /// Every entry point the runtime exports, and no other.
        pub const ENTRIES: &[Entry] = &[
            $(Entry {
                id: Id::$id,
                name: $name,
                params: &[$(Ty::$p),*],
                ret: Ty::$ret,
                libc: &[$($($libc),*)?],
            },)*
        ];
    };
}

entries! {
    // Called by the probes and by each module's constructor (`instrument/src`).
    RegisterModule = "__carve_register_module" (Ptr, I32, I32, Ptr, I32, Ptr, I32, Ptr) -> Void;
    MainEntry = "__carve_main_entry" (Ptr, Ptr) -> I32;
    RegisterTokens = "__carve_register_tokens" (Ptr, I32) -> Void;
    Enter = "__carve_enter" (Ptr, I32, Ptr, I32, Ptr, Ptr, I32) -> I64;
    Leave = "__carve_leave" (I64, I64, I32) -> Void;
    CopyOf = "__carve_copy_of" (Ptr) -> Ptr;
    CopyNamed = "__carve_copy_named" (Ptr, Ptr, I32) -> Ptr;
    OnAlloc = "__carve_on_alloc" (Ptr, I64) -> Void
        ["malloc", "valloc", "pvalloc", "calloc", "aligned_alloc", "memalign", "posix_memalign"];
    OnRealloc = "__carve_on_realloc" (Ptr, Ptr, I64) -> Void ["realloc", "reallocarray"];
    OnFree = "__carve_on_free" (Ptr) -> Void ["free", "cfree", "fclose", "pclose"];
    OnString = "__carve_on_string" (Ptr) -> Void ["strdup", "strndup", "__strdup"];
    OnGetline = "__carve_on_getline" (Ptr, Ptr, Ptr) -> Void ["getline", "getdelim", "__getdelim"];
    OnStream = "__carve_on_stream" (Ptr) -> Void [
        "fopen", "fopen64", "fdopen", "freopen", "freopen64", "tmpfile", "tmpfile64", "popen", "fmemopen",
        "open_memstream",
    ];
    OnRecord = "__carve_on_record" (Ptr, I32) -> Void [
        "getutxent", "getutxid", "getutxline", "getutent", "getutid", "getutline", "getpwent", "getpwnam", "getpwuid",
        "fgetpwent", "getgrent", "getgrnam", "getgrgid", "fgetgrent", "gethostent", "gethostbyname", "gethostbyname2",
        "gethostbyaddr", "getservent", "getservbyname", "getservbyport",
    ];
    // Called by a host built without carve-clang (`CARVE_DEFER=1`).
    Start = "__carve_start" () -> Void;
    // Called by the harness driver after each run (`runtime/fuzzer/driver.c`).
    PersistentNext = "__carve_persistent_next" () -> I32;
    // `_Unwind_Resume`, renamed in the copy of the library carve-clang links.
    NoUnwind = "__carve_no_unwind" () -> Void;
    // The allocator, exported as weak `malloc`, `calloc`... (`runtime/src/malloc.rs`).
    Malloc = "__carve_malloc" (I64) -> Ptr;
    Calloc = "__carve_calloc" (I64, I64) -> Ptr;
    Realloc = "__carve_realloc" (Ptr, I64) -> Ptr;
    Free = "__carve_free" (Ptr) -> Void;
    Memalign = "__carve_memalign" (I64, I64) -> Ptr;
    AlignedAlloc = "__carve_aligned_alloc" (I64, I64) -> Ptr;
    PosixMemalign = "__carve_posix_memalign" (Ptr, I64, I64) -> I32;

    // Called by the symbolic clones (`instrument/src/symbolic`).
    Binop = "__sym_binop" (I32, I32, I32, I64, I64, I32) -> I32;
    Overflow = "__sym_overflow" (I32, I32, I32, I64, I64, I32) -> I32;
    Cmp = "__sym_cmp" (I32, I32, I32, I64, I64, I32) -> I32;
    CmpPtr = "__sym_cmp_ptr" (I32, I32, I32, I64, I64) -> I32;
    Cast = "__sym_cast" (I32, I32, I32) -> I32;
    Select = "__sym_select" (I32, I32, I32, I32, I64, I64, I32) -> I32;
    Gep = "__sym_gep" (I32, I64, I32, I64, I64, I64) -> I32;
    Load = "__sym_load" (Ptr, I32) -> I32;
    LoadIndexed = "__sym_load_indexed" (Ptr, I32, I64, I32, I32) -> I32;
    Store = "__sym_store" (Ptr, I32, I32) -> Void;
    Memcpy = "__sym_memcpy" (Ptr, Ptr, I64) -> Void ["memcpy", "memmove", "__asan_memcpy", "__asan_memmove"];
    Memset = "__sym_memset" (Ptr, I32, I64) -> Void ["memset", "__asan_memset"];
    Clear = "__sym_clear" (Ptr, I64) -> Void;
    SetParam = "__sym_set_param" (I32, I32) -> Void;
    GetParam = "__sym_get_param" (I32) -> I32;
    SetRet = "__sym_set_ret" (I32) -> Void;
    GetRet = "__sym_get_ret" () -> I32;
    Branch = "__sym_branch" (I32, I32, I32, Ptr, I32, I32) -> Void;
    Switch = "__sym_switch" (I32, I32, I64, Ptr, I32, Ptr, Ptr) -> Void;
    Pin = "__sym_pin" (I32, I64, Ptr) -> Void;
    CheckDiv = "__sym_check_div" (I32, I32, I32, I32, I64, I64, I32) -> Void;
    CheckAccess = "__sym_check_access" (I32, I64, I32, I32) -> Void;
    CloneOf = "__sym_clone_of" (Ptr) -> Ptr;
    // Models of libc, called after the real call.
    ModelCmp = "__sym_model_cmp" (Ptr, Ptr, I64, I32) -> I32 ["strcmp", "strncmp", "memcmp", "bcmp", "strcoll"];
    ModelStrlen = "__sym_model_strlen" (Ptr, I64) -> I32 ["strlen"];
    ModelStrcpy = "__sym_model_strcpy" (Ptr, Ptr) -> Void ["strcpy", "stpcpy"];
    ModelSprintf = "__sym_model_sprintf" (Ptr, I64, Ptr, Ptr, I64) -> Void
        ["sprintf", "snprintf", "__sprintf_chk", "__snprintf_chk"];
    ModelChar = "__sym_model_char" (I32, I32) -> I32
        ["toupper", "tolower", "isdigit", "isspace", "isalpha", "isalnum", "isupper", "islower", "isxdigit"];
    ModelStrtol = "__sym_model_strtol" (Ptr, Ptr, I64, I32, I32, I32) -> I32 [
        "atoi", "atol", "atoll", "strtol", "strtoll", "strtoimax", "strtoq", "strtoul", "strtoull", "strtoumax",
        "strtouq",
    ];
    ScanfArg = "__sym_scanf_arg" (I32, Ptr) -> Void;
    ScanfVa = "__sym_scanf_va" (Ptr) -> Void;
    ModelSscanf = "__sym_model_sscanf" (I32, Ptr, Ptr, I64, I32) -> I32
        ["sscanf", "vsscanf", "__isoc99_sscanf", "__isoc99_vsscanf"];
    ModelFscanf = "__sym_model_fscanf" (Ptr, I64, I32) -> Void [
        "fscanf", "vfscanf", "scanf", "vscanf", "__isoc99_fscanf", "__isoc99_vfscanf", "__isoc99_scanf",
        "__isoc99_vscanf",
    ];
    ModelStrchr = "__sym_model_strchr" (I32, Ptr, I32, I64, I32, I64, Ptr, I32) -> I32
        ["strchr", "strrchr", "memchr", "strchrnul"];
    ModelStrspn = "__sym_model_strspn" (I32, Ptr, I32, Ptr, I64, I32) -> I32 ["strspn", "strcspn", "strpbrk"];
    ModelStrstr = "__sym_model_strstr" (Ptr, I32, Ptr, Ptr, I32) -> I32 ["strstr"];
    ModelCasecmp = "__sym_model_casecmp" (Ptr, Ptr, I64) -> I32 ["strcasecmp", "strncasecmp"];
    ModelStrtokPre = "__sym_model_strtok_pre" (I32, Ptr, Ptr, Ptr) -> Void;
    ModelStrtok = "__sym_model_strtok" (I32, Ptr, Ptr, Ptr, I32) -> Void
        ["strtok", "strtok_r", "__strtok_r", "strsep"];
    ModelGetoptPre = "__sym_model_getopt_pre" (I32, Ptr) -> Void;
    ModelGetopt = "__sym_model_getopt" (Ptr, Ptr, I64) -> I32 ["getopt", "getopt_long", "getopt_long_only"];
    ModelRegex = "__sym_model_regex" (I32, Ptr, I64, I64, I32) -> Void ["re_compile_pattern", "regcomp"];
    ModelRead = "__sym_model_read" (I32, Ptr, I64) -> Void ["read", "__read_chk"];
    ModelFread = "__sym_model_fread" (Ptr, I64, I64, Ptr) -> Void ["fread", "fread_unlocked"];
    ModelFgets = "__sym_model_fgets" (Ptr, Ptr, Ptr) -> Void ["fgets", "fgets_unlocked"];
    ModelGetline = "__sym_model_getline" (Ptr, I64, Ptr) -> Void ["getline", "getdelim", "__getdelim"];
    ModelGetc = "__sym_model_getc" (Ptr, I64, I32) -> I32 [
        "getc", "fgetc", "_IO_getc", "getc_unlocked", "fgetc_unlocked", "getchar", "getchar_unlocked", "__uflow",
        "__underflow",
    ];
    ModelUngetc = "__sym_model_ungetc" (Ptr, I64, I32, I64) -> Void ["ungetc"];
    ModelMbrtowc = "__sym_model_mbrtowc" (Ptr, Ptr, I64, I32, I64, I32) -> I32 ["mbrtowc", "mbrlen"];
    ModelWcrtomb = "__sym_model_wcrtomb" (Ptr, I64, I32, I64, I32) -> Void ["wcrtomb"];
    ModelWctob = "__sym_model_wctob" (I32, I64, I32, I64, I32) -> I32 ["btowc", "wctob"];
    ModelWchar = "__sym_model_wchar" (I32, I64, I32, I64, I32) -> I32 [
        "towupper", "towlower", "iswdigit", "iswspace", "iswalpha", "iswalnum", "iswupper", "iswlower", "iswxdigit",
        "iswprint", "iswgraph", "iswcntrl", "iswpunct", "iswblank",
    ];
}

/// The runtime's data the pass refers to: `uint8_t
/// __carve_dummy_map[MAP_SIZE]` and `uint8_t __carve_tracking`.
pub const DUMMY_MAP: &str = "__carve_dummy_map";
pub const TRACKING: &str = "__carve_tracking";
pub const DATA: [&str; 2] = [DUMMY_MAP, TRACKING];

/// libc calls the symbolic clones know to leave alone: their arguments
/// never steer the program, so nothing is pinned. (`sprintf` and kin
/// write memory: they have a model.)
pub const SINKS: &[&str] = &[
    "printf",
    "fprintf",
    "vfprintf",
    "vprintf",
    "puts",
    "fputs",
    "putchar",
    "putc",
    "fputc",
    "fwrite",
    "fputs_unlocked",
    "fwrite_unlocked",
    "putchar_unlocked",
    "putc_unlocked",
    "fputc_unlocked",
    "free",
    "error",
    "perror",
    "__printf_chk",
    "__fprintf_chk",
    "__vfprintf_chk",
];

impl Id {
    pub const fn entry(self) -> &'static Entry {
        &ENTRIES[self as usize]
    }

    pub const fn name(self) -> &'static str {
        self.entry().name
    }
}

/// The entry, among those named with `prefix`, that libc function `name`
/// goes to, and `name`'s place in its list.
fn find(prefix: &str, name: &str) -> Option<(Id, u32)> {
    ENTRIES.iter().filter(|e| e.name.starts_with(prefix)).find_map(|e| {
        let k = e.libc.iter().position(|&n| n == name)?;
        Some((e.id, k as u32))
    })
}

/// The symbolic model of a call to libc function `name`, and `name`'s
/// place in its list: the `kind` that `__sym_model_char`, `_strchr`,
/// `_strspn`, `_wctob` and `_wchar` take.
pub fn sym_model(name: &str) -> Option<(Id, u32)> {
    find("__sym_", name)
}

/// The allocation probe after (or, for `free`, before) a call to libc
/// function `name`.
pub fn probe(name: &str) -> Option<Id> {
    find("__carve_", name).map(|(id, _)| id)
}

/// Every libc function the pass knows by name (with repeats: `getline`
/// has a probe and a model).
pub fn libc_functions() -> impl Iterator<Item = &'static str> {
    ENTRIES.iter().flat_map(|e| e.libc.iter().copied()).chain(SINKS.iter().copied())
}
