//! Symbolic shadow instrumentation, in the style of compile-time concolic
//! execution, kept off the fast path: every defined function `F` gets a
//! clone `F.sym` ([`clone`]) whose integer operations, comparisons, casts,
//! selects, PHIs, loads, stores, branches, switches and calls also build
//! expressions through the runtime ([`shadow`], [`calls`]). Only symbolic
//! unit replay calls the clones (through the clones of the replay
//! trampolines); system runs never reach them.

mod abi;
mod calls;
pub mod clone;
mod io;
mod pointers;
mod shadow;

use crate::Error;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::values::FunctionValue;

/// Most parameters whose shadows a call passes (as the runtime's table).
const MAX_PARAMS: usize = 64;

/// Clones and instruments; returns, for each trampoline in `tramps`, the
/// trampoline of its symbolic clone.
pub fn instrument<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    tramps: &[Option<FunctionValue<'ctx>>],
) -> Result<Vec<Option<FunctionValue<'ctx>>>, Error> {
    let tramp_names: Vec<String> =
        tramps.iter().flatten().map(|t| t.get_name().to_string_lossy().into_owned()).collect();
    let clones = clone::clone_functions(module, |name| tramp_names.iter().any(|t| t == name))?;
    let td = TargetData::create(&module.get_data_layout().as_str().to_string_lossy());
    let abi = abi::Abi::declare(ctx, module);
    let mut s = shadow::Shadower::new(ctx, module, &abi, &td);
    for (_, sym) in &clones {
        if let Some(f) = module.get_function(sym) {
            s.instrument(f)?;
        }
    }
    Ok(tramps
        .iter()
        .map(|t| t.and_then(|t| module.get_function(&format!("{}{}", t.get_name().to_string_lossy(), clone::SUFFIX))))
        .collect())
}
