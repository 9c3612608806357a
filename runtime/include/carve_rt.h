/* carve_rt.h: the C interface of libcarve_rt.a, the runtime linked into
 * every program built with carve-clang. The instrumentation calls these;
 * user code never needs to. bridge/tests/suite/abi.rs checks these
 * prototypes against runtime/src/abi.rs. */
#ifndef CARVE_RT_H
#define CARVE_RT_H
#include <stdint.h>

/* Size of the coverage map in bytes (model::MAP_SIZE). */
#define CARVE_MAP_SIZE 65536

/* Where counters go before their module registers, and the private map of
 * a program run without bridge. */
extern uint8_t __carve_dummy_map[CARVE_MAP_SIZE];

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

/* Registers one instrumented module (called from its constructor, priority
 * 1): sets *area to the module's slice of the map, `edges` counters long;
 * `branches` of them count branch outcomes. The function and global
 * tables and the dirty array (a byte per global) are kept for carving and
 * replay. */
void __carve_register_module(uint8_t **area, uint32_t edges, uint32_t branches,
                             const struct carve_func_entry *funcs, uint32_t nfuncs,
                             const struct carve_global_entry *globals, uint32_t nglobals,
                             uint8_t *dirty);

/* Called first thing in main: starts the fork server when CARVE_FORKSRV=1
 * (protocol: model/src/protocol.rs); returns at once otherwise. */
int __carve_main_entry(int *argc, char ***argv);

#endif
