//! Symbolic shadow instrumentation, in the style of compile-time concolic
//! execution, kept off the fast path: every defined function `F` gets a
//! clone `F..sym` ([`clone`]) whose integer operations, comparisons, casts,
//! selects, PHIs, loads, stores, branches, switches and calls also build
//! expressions through the runtime ([`shadow`], [`calls`]). Only symbolic
//! unit replay calls the clones (through the clones of the replay
//! trampolines); system runs never reach them.

mod abi;
mod calls;
mod io;
mod pointers;
mod shadow;

use crate::Error;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::values::FunctionValue;

/// Suffix of the symbolic clones (two dots, see `preserve::SUFFIX`: a
/// static `sym` in `main` is the symbol `main.sym`).
pub const SUFFIX: &str = "..sym";

/// Most parameters whose shadows a call passes (as the runtime's table).
const MAX_PARAMS: usize = 64;

/// Clones and instruments `units` (the functions carving and replay call:
/// the `..carve` copies, or every function of a module built without them)
/// and the trampolines in `tramps`; returns, for each trampoline, the
/// trampoline of its symbolic clone. The clone of `F..carve` is `F..sym`, as
/// a module's calls to another module's `F` expect.
pub fn instrument<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    units: &[FunctionValue<'ctx>],
    tramps: &[Option<FunctionValue<'ctx>>],
) -> Result<Vec<Option<FunctionValue<'ctx>>>, Error> {
    let mut names: Vec<String> = tramps.iter().flatten().map(|t| t.get_name().to_string_lossy().into_owned()).collect();
    names.extend(units.iter().map(|f| f.get_name().to_string_lossy().into_owned()));
    names.sort_unstable();
    let clones = crate::clone::clone_functions(
        module,
        |name, _| names.binary_search_by(|n| n.as_str().cmp(name)).is_ok(),
        sym_name,
    )?;
    let td = TargetData::create(&module.get_data_layout().as_str().to_string_lossy());
    let abi = abi::Abi::declare(ctx, module);
    let mut s = shadow::Shadower::new(ctx, module, &abi, &td);
    for (_, sym) in &clones {
        if let Some(f) = module.get_function(sym) {
            s.instrument(f)?;
        }
    }
    Ok(tramps.iter().map(|t| t.and_then(|t| module.get_function(&sym_name(&t.get_name().to_string_lossy())))).collect())
}

/// The name of a function's symbolic clone.
pub fn sym_name(name: &str) -> String {
    format!("{}{}", name.strip_suffix(crate::preserve::SUFFIX).unwrap_or(name), SUFFIX)
}
