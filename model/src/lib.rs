//! Shared data types, constants and names of the carving and bridging system.
//!
//! Everything the instrumentation pass, the runtime and the bridge must agree
//! on lives here, once: the coverage map layout, the fork-server protocol and
//! the environment variables; the runtime's entry points (`abi.rs`). This
//! crate does no I/O. `abi.rs`, `chars.rs`, `consts.rs`, `names.rs`,
//! `op.rs`, `protocol.rs`, `snapshot.rs` and `trace.rs` use nothing but
//! `core`: the `no_std` runtime compiles them directly, so the names have
//! one source.

pub mod abi;
pub mod alarm;
pub mod chars;
mod consts;
mod encoding;
pub mod env;
pub mod fields;
#[cfg(test)]
mod fuzz_decoders;
pub mod fuzzing;
pub mod http;
pub mod layout;
mod names;
pub mod op;
pub mod protocol;
pub mod shell;
pub mod snapshot;
pub mod symtrace;
pub mod trace;
pub mod unit;

pub use consts::*;

#[cfg(test)]
mod tests {
    use crate::abi::{Id, ENTRIES, SINKS};

    #[test]
    fn the_table_names_each_entry_point_and_libc_function_once() {
        for (k, e) in ENTRIES.iter().enumerate() {
            assert_eq!(e.id as usize, k, "{}", e.name);
            assert!(ENTRIES[..k].iter().all(|o| o.name != e.name), "{} twice", e.name);
            assert!(e.name.starts_with("__carve_") || e.name.starts_with("__sym_"), "{}", e.name);
        }
        for prefix in ["__carve_", "__sym_"] {
            let mut seen = std::collections::BTreeSet::new();
            for e in ENTRIES.iter().filter(|e| e.name.starts_with(prefix)) {
                for n in e.libc {
                    assert!(seen.insert(n), "{n} goes to two entries named {prefix}*");
                }
            }
        }
        assert_eq!(crate::MAIN_ENTRY, Id::MainEntry.name());
        for n in SINKS {
            assert!(crate::abi::sym_model(n).is_none(), "{n} is a sink and has a model");
        }
    }

    #[test]
    fn the_wide_character_models_are_numbered_as_the_runtime_names_them() {
        let names: Vec<_> = crate::chars::WIDE_CHAR_FUNCTIONS.iter().map(|c| c.to_str().unwrap()).collect();
        assert_eq!(Id::ModelWchar.entry().libc, names.as_slice());
    }
}
