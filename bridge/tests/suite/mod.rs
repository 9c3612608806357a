//! The end-to-end suites, one module per area.

mod abi;
mod afl;
mod bad_traces;
mod bridging;
mod campaign;
mod carving;
mod commands;
mod dictionary;
mod encodings;
mod gnast;
mod grammar;
mod harness;
mod inlining;
mod input_file;
mod libc_models;
mod libc_records;
mod modules;
mod node_lifts;
mod replay_status;
mod review;
mod sanitizers;
mod shared_libs;
mod signs;
mod symbolic;
mod timeouts;
mod trimming;
