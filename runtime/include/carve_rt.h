/* carve_rt.h: the C interface of libcarve_rt.a, the runtime linked into
 * every program built with carve-clang. The instrumentation calls these;
 * user code never needs to, but for __carve_start. Every entry point of
 * model/src/abi.rs is declared here, and nothing else: the runtime's tests
 * (runtime/src/exports.rs) check the names and the machine types against
 * that table and against runtime/src.
 *
 * Symbolic shadows (uint32_t `s...` arguments) are expression ids, 0 for
 * a concrete value; values travel as 64 bits. `site` numbers a call or a
 * branch in its module. */
#ifndef CARVE_RT_H
#define CARVE_RT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Size of the coverage map in bytes (model::MAP_SIZE). */
#define CARVE_MAP_SIZE 65536

/* Where counters go before their module registers, and the private map of
 * a program run without bridge. */
extern uint8_t __carve_dummy_map[CARVE_MAP_SIZE];

/* Non-zero while calls and allocations are tracked (carving); read at
 * every function entry. */
extern uint8_t __carve_tracking;

/* One function of a module's table: 32-bit offsets from the start of the
 * table (0: none), resolved by the static linker, so loading a program
 * costs no relocation per entry. */
struct carve_func_entry {
    int32_t addr, name, tramp;
    int32_t first_branch, branches; /* its branch outcomes, module-local */
    int32_t sym_tramp;              /* trampoline of its symbolic clone */
    int32_t copy, sym;              /* its out-of-line copy, and that copy's clone */
};

/* One global of a module's table (offsets likewise). */
struct carve_global_entry {
    uint64_t size;
    int32_t addr, name;
};

/* ---- Probes and module set-up (instrument/src) ---- */

/* Registers one instrumented module (called from its constructor, priority
 * 1): sets *area to the module's slice of the map, `edges` counters long;
 * `branches` of them count branch outcomes. The function and global
 * tables and the dirty array (a byte per global) are kept for carving and
 * replay. */
void __carve_register_module(uint8_t **area, uint32_t edges, uint32_t branches,
                             const struct carve_func_entry *funcs, uint32_t nfuncs,
                             const struct carve_global_entry *globals, uint32_t nglobals,
                             uint8_t *dirty);

/* Called by each module's constructor before it registers the module:
 * the module's dictionary, `len` bytes, each token a length byte and its
 * bytes (constants its code compares with), listed with the functions. */
void __carve_register_tokens(const uint8_t *tokens, uint32_t len);

/* Called first thing in main (null pointers when main takes no arguments):
 * starts the fork server when CARVE_FORKSRV=1 (protocol:
 * model/src/protocol.rs), may replace each run's command line, replays a
 * unit or lists the functions instead of running main. Returns non-zero
 * when the run carves: main then runs its out-of-line copy. */
int __carve_main_entry(int *argc, char ***argv);

/* Function `k` of the module whose map slice is `area` was entered (only
 * while tracking), with `nargs` arguments of `kinds` and `nframe`
 * (address, size) pairs of stack objects. Returns the token for
 * __carve_leave (0: nothing to do). */
uint64_t __carve_enter(uint8_t *area, uint32_t k, uint64_t *args, uint32_t nargs, const uint8_t *kinds,
                       uint64_t *frame, uint32_t nframe);

/* The call that got `token` from __carve_enter returns `ret`. */
void __carve_leave(uint64_t token, uint64_t ret, uint32_t has_ret);

/* What an indirect call in an out-of-line copy calls: the copy of the
 * function `fp` points to, or `fp`. */
void *__carve_copy_of(void *fp);

/* The out-of-line copy (`sym == 0`) or symbolic clone of the function
 * `name` is bound to in the process, when another instrumented module has
 * one; null otherwise. `cache` points to the caller's
 * `struct { uint64_t gen; void *found; }`. */
void *__carve_copy_named(const char *name, void *cache, uint32_t sym);

/* After malloc-like calls: `p` holds `size` bytes. */
void __carve_on_alloc(void *p, uint64_t size);

/* After realloc: `old` is gone (when `p` is not null), `p` holds `size`. */
void __carve_on_realloc(void *old, void *p, uint64_t size);

/* Before free(p), fclose(p) and the like. */
void __carve_on_free(void *p);

/* After strdup-like calls: `s` is a fresh string. */
void __carve_on_string(char *s);

/* After getline(line, n, ...): `old` was *line before the call. */
void __carve_on_getline(char *old, char **line, size_t *n);

/* After fopen-like calls: `f` is a fresh stream. */
void __carve_on_stream(FILE *f);

/* After a libc call that returns a record in a buffer of its own (it
   overwrites it on the next call): getutxent and kin (a struct utmpx),
   getpwent and kin (a struct passwd and its strings), getgrent and kin (a
   struct group, its strings and member list). `kind` is the function's
   place in the probe's list of libc functions. */
void __carve_on_record(void *p, int kind);

/* ---- Called by hosts and by the link ---- */

/* Starts the runtime in a host built without carve-clang, once (fork
 * server, replay): at the first module's registration or, with
 * CARVE_DEFER=1, when the host calls it after its own set-up. */
void __carve_start(void);

/* After a run of a harness (runtime/fuzzer/driver.c): non-zero when the
 * child is to make another (persistent mode, CARVE_PERSISTENT): it has
 * stopped itself, and the fork server has continued it with a new input. */
int __carve_persistent_next(void);

/* Stands for _Unwind_Resume in the copy of the runtime carve-clang links:
 * the runtime never unwinds; aborts. */
void __carve_no_unwind(void);

/* The allocator, also exported as weak malloc, calloc, realloc, free,
 * memalign, aligned_alloc and posix_memalign: glibc's, with the objects
 * kept in the allocation map while tracking. */
void *__carve_malloc(size_t size);
/* As calloc(3). */
void *__carve_calloc(size_t n, size_t size);
/* As realloc(3). */
void *__carve_realloc(void *p, size_t size);
/* As free(3). */
void __carve_free(void *p);
/* As memalign(3). */
void *__carve_memalign(size_t align, size_t size);
/* As aligned_alloc(3). */
void *__carve_aligned_alloc(size_t align, size_t size);
/* As posix_memalign(3). */
int __carve_posix_memalign(void **out, size_t align, size_t size);

/* ---- Symbolic clones: operations (instrument/src/symbolic) ---- */

/* `a op b` on `width`-bit integers (op: model/src/op.rs). */
uint32_t __sym_binop(uint32_t op, uint32_t sa, uint32_t sb, uint64_t va, uint64_t vb, uint32_t width);

/* The overflow flag of an llvm.*.with.overflow (kind 0..5: uadd, sadd,
 * usub, ssub, umul, smul). */
uint32_t __sym_overflow(uint32_t kind, uint32_t sa, uint32_t sb, uint64_t va, uint64_t vb, uint32_t width);

/* An integer comparison: 1 bit. */
uint32_t __sym_cmp(uint32_t op, uint32_t sa, uint32_t sb, uint64_t va, uint64_t vb, uint32_t width);

/* A comparison of two pointers. */
uint32_t __sym_cmp_ptr(uint32_t op, uint32_t sa, uint32_t sb, uint64_t va, uint64_t vb);

/* `sa` zero- or sign-extended or truncated to `to` bits. */
uint32_t __sym_cast(uint32_t sa, uint32_t to, uint32_t is_signed);

/* `c ? t : f` (`sc`: the condition's shadow, `c` its value). */
uint32_t __sym_select(uint32_t sc, uint32_t c, uint32_t st, uint32_t sf, uint64_t vt, uint64_t vf, uint32_t width);

/* Pointer `r` from `p` by a GEP whose index `vi` counts `stride` bytes. */
uint32_t __sym_gep(uint32_t sp, uint64_t p, uint32_t si, uint64_t vi, uint64_t stride, uint64_t r);

/* The shadow of `size` bytes loaded from `p`. */
uint32_t __sym_load(const void *p, uint32_t size);

/* A load of `base[index]` with a symbolic index (a table read). */
uint32_t __sym_load_indexed(const void *p, uint32_t si, uint64_t vi, uint32_t elem, uint32_t size);

/* `size` bytes stored at `p` with shadow `sv`. */
void __sym_store(void *p, uint32_t sv, uint32_t size);

/* After memcpy/memmove (and llvm.memcpy): the shadows follow the bytes. */
void __sym_memcpy(void *dst, const void *src, uint64_t n);

/* After memset(dst, c, n); `sc` is the shadow of `c`. */
void __sym_memset(void *dst, uint32_t sc, uint64_t n);

/* Forgets the shadow of fresh memory (an alloca, a malloc). */
void __sym_clear(void *p, uint64_t n);

/* The shadow of argument `i` of the clone about to be called. */
void __sym_set_param(uint32_t i, uint32_t sa);

/* The shadow of the clone's parameter `i` (and forgets it). */
uint32_t __sym_get_param(uint32_t i);

/* The shadow of the value the clone returns. */
void __sym_set_ret(uint32_t sa);

/* The shadow of what the called clone returned (and forgets it). */
uint32_t __sym_get_ret(void);

/* A conditional branch on `sc` went `taken`; `if_false` and `if_true` are
 * its directions' counters in the module whose map pointer is at `area`. */
void __sym_branch(uint32_t site, uint32_t sc, uint32_t taken, uint8_t **area, uint32_t if_false, uint32_t if_true);

/* A switch on `sv` (value `v`) with `n` cases and `n + 1` counter ids. */
void __sym_switch(uint32_t site, uint32_t sv, uint64_t v, const uint64_t *cases, uint32_t n, uint8_t **area,
                  const uint32_t *ids);

/* An unmodelled call's argument, pinned to its value; `callee` names the
 * call (null: unknown). */
void __sym_pin(uint32_t sa, uint64_t v, const char *callee);

/* Before a division or remainder: its trap as a branch of `site`. */
void __sym_check_div(uint32_t site, uint32_t op, uint32_t sa, uint32_t sb, uint64_t va, uint64_t vb, uint32_t width);

/* Before an access of `access` bytes at a symbolic address `p`: whether
 * the inputs could move it far outside its object, as a branch of `site`. */
void __sym_check_access(uint32_t site, uint64_t p, uint32_t sp, uint32_t access);

/* The symbolic clone of the function `fp` points to (null: none). */
void *__sym_clone_of(void *fp);

/* ---- Symbolic clones: models of libc, after the real call ---- */

/* strcmp, strncmp, memcmp, bcmp, strcoll (`strings`: stop at NUL). */
uint32_t __sym_model_cmp(const void *a, const void *b, uint64_t n, uint32_t strings);

/* strlen(p) == len. */
uint32_t __sym_model_strlen(const char *p, uint64_t len);

/* strcpy, stpcpy: the string now at `dst` came from `src`. */
void __sym_model_strcpy(char *dst, const char *src);

/* sprintf(dst, fmt, arg, ...) and snprintf (`n` bytes; n < 0: no bound)
 * returned `ret`; `arg` is the first argument when it is a pointer. */
void __sym_model_sprintf(char *dst, int64_t n, const char *fmt, const void *arg, int64_t ret);

/* toupper, tolower, isdigit... (kind: the place in model/src/abi.rs). */
uint32_t __sym_model_char(uint32_t kind, uint32_t sc);

/* strtol and its family (`flags` bit 0: signed; `width`: the result's bits). */
uint32_t __sym_model_strtol(const char *p, char **endptr, int64_t base, uint32_t site, uint32_t width,
                            uint32_t flags);

/* Argument `k` after the format of the next scanf-like call. */
void __sym_scanf_arg(uint32_t k, void *p);

/* Before vsscanf(_, _, ap): a copy of `ap`. */
void __sym_scanf_va(const void *ap);

/* sscanf(str, fmt, ...) == ret (`nargs` from __sym_scanf_arg, or
 * UINT32_MAX for vsscanf). The result's shadow. */
uint32_t __sym_model_sscanf(uint32_t site, const char *str, const char *fmt, int64_t ret, uint32_t nargs);

/* fscanf, scanf(fmt, ...) == ret: what they stored is concrete. */
void __sym_model_fscanf(const char *fmt, int64_t ret, uint32_t nargs);

/* strchr (kind 0), strrchr (1), memchr (2, `n` bytes), strchrnul (3). */
uint32_t __sym_model_strchr(uint32_t kind, const char *p, uint32_t sp, int64_t ch, uint32_t sc, uint64_t n,
                            const char *r, uint32_t site);

/* strspn (kind 0), strcspn (1), strpbrk (2) of `p` over `set`. */
uint32_t __sym_model_strspn(uint32_t kind, const char *p, uint32_t sp, const char *set, uint64_t r, uint32_t site);

/* strstr(h, needle) == r. */
uint32_t __sym_model_strstr(const char *h, uint32_t sh, const char *needle, const char *r, uint32_t site);

/* strcasecmp (n: UINT64_MAX) and strncasecmp. */
uint32_t __sym_model_casecmp(const char *a, const char *b, uint64_t n);

/* Before strtok (kind 0), strtok_r (1) or strsep (2). */
void __sym_model_strtok_pre(uint32_t kind, const char *str, const char *delim, const char **save);

/* After the call __sym_model_strtok_pre saw, which returned `r`. */
void __sym_model_strtok(uint32_t kind, const char *delim, void *save, const char *r, uint32_t site);

/* Before getopt and getopt_long: the words from optind on. */
void __sym_model_getopt_pre(int argc, char *const *argv);

/* After getopt, getopt_long (`longopts`: a struct option array or null)
 * returned `ret`: its shadow. */
uint32_t __sym_model_getopt(const char *optstring, const void *longopts, int64_t ret);

/* re_compile_pattern (`len` bytes) or regcomp (len UINT64_MAX, `syntax`
 * its cflags): `ok` is whether the pattern was accepted. */
void __sym_model_regex(uint32_t site, const char *pattern, uint64_t len, uint64_t syntax, uint32_t ok);

/* read(fd, buf, _) == ret. */
void __sym_model_read(int fd, void *buf, int64_t ret);

/* fread(buf, size, _, fp) == ret. */
void __sym_model_fread(void *buf, int64_t size, int64_t ret, FILE *fp);

/* fgets(s, _, fp) == ret. */
void __sym_model_fgets(char *s, char *ret, FILE *fp);

/* getline, getdelim(line, _, _, fp) == ret. */
void __sym_model_getline(char **line, int64_t ret, FILE *fp);

/* A character `ret` read from `fp` (null: stdin); `how`: 0 getc, 1
 * __uflow, 2 __underflow. The character's expression. */
uint32_t __sym_model_getc(FILE *fp, int64_t ret, int32_t how);

/* ungetc(ch, fp) returned `ret`, `ch`'s shadow being `sc`. */
void __sym_model_ungetc(FILE *fp, int64_t ch, uint32_t sc, int64_t ret);

/* mbrtowc(pwc, p, n, _), or mbrlen when `pwc` is null, returned `r`. */
uint32_t __sym_model_mbrtowc(void *pwc, const char *p, uint64_t n, uint32_t sn, uint64_t r, uint32_t site);

/* wcrtomb(p, wc, _) returned `r`: the byte stored at `p`. */
void __sym_model_wcrtomb(char *p, uint64_t wc, uint32_t sw, uint64_t r, uint32_t site);

/* wctob (to_byte 1) or btowc (0) of `ch` returned `r`. */
uint32_t __sym_model_wctob(uint32_t to_byte, uint64_t ch, uint32_t sc, uint64_t r, uint32_t site);

/* towupper, iswprint... (kind: model/src/chars.rs) of `ch` returned `r`. */
uint32_t __sym_model_wchar(uint32_t kind, uint64_t ch, uint32_t sc, uint64_t r, uint32_t site);

#endif
