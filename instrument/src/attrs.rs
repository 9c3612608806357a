//! Strips the function attributes whose promises a probe breaks.
//!
//! Optimised bitcode may mark a function `memory(none)` or `memory(read)`;
//! a function that increments a counter writes memory, and left marked the
//! backend (or a later LTO step) could move or drop its calls and probes.

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::values::FunctionValue;

const STRIPPED: &[&str] = &["memory", "readnone", "readonly", "writeonly", "argmemonly", "inaccessiblememonly"];

pub fn strip_memory_promises(f: FunctionValue<'_>) {
    for name in STRIPPED {
        let kind = Attribute::get_named_enum_kind_id(name);
        if kind != 0 {
            f.remove_enum_attribute(AttributeLoc::Function, kind);
        }
    }
}
