/* carve_rt.h: the C interface of libcarve_rt.a, the runtime linked into
 * every program built with carve-clang. The instrumentation calls these;
 * user code never needs to. Keep in step with runtime/src/abi.rs. */
#ifndef CARVE_RT_H
#define CARVE_RT_H
#include <stdint.h>

/* Size of the coverage map in bytes (model::MAP_SIZE). */
#define CARVE_MAP_SIZE 65536

/* Where counters go before their module registers, and the private map of
 * a program run without bridge. */
extern uint8_t __carve_dummy_map[CARVE_MAP_SIZE];

/* Registers one instrumented module (called from its constructor, priority
 * 1): sets *area to the module's slice of the map, `edges` counters long.
 * `branches` of them count branch outcomes. */
void __carve_register_module(uint8_t **area, uint32_t edges, uint32_t branches);

/* Called first thing in main: starts the fork server when CARVE_FORKSRV=1
 * (protocol: model/src/protocol.rs); returns at once otherwise. */
int __carve_main_entry(int *argc, char ***argv);

#endif
