//! Entry points of a shared library: while the runtime tracks (carving),
//! a function another module may call goes to its out-of-line copy, whose
//! calls the probes see.
//!
//! A program built with carve-clang switches to the copies at `main`; a
//! library loaded by a program built without it (Python's `sqlite3`
//! module loading `libsqlite3.so`) is only ever entered through its
//! exported functions, which are the optimised ones, without probes. So a
//! module compiled for a shared library (`-fPIC`) gives each of them a
//! check at entry: `if (__carve_tracking) return F..carve(args)`. One load
//! and a branch per call from outside; nothing for calls inside the
//! library, which the optimiser inlined or which run between copies.

use crate::{abi, preserve, Error};
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::{FunctionValue, InstructionOpcode};
use inkwell::{AddressSpace, GlobalVisibility, IntPredicate};

/// Adds the check to every function of `copies`' originals that other
/// modules may call; returns how many.
pub fn dispatch<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>, copies: &[FunctionValue<'ctx>]) -> Result<u32, Error> {
    let i8t = ctx.i8_type();
    let tracking = module.get_global(abi::TRACKING).unwrap_or_else(|| {
        let g = module.add_global(i8t, Some(AddressSpace::default()), abi::TRACKING);
        g.set_linkage(Linkage::External);
        g
    });
    let b = ctx.create_builder();
    let mut done = 0;
    for copy in copies {
        let name = copy.get_name().to_string_lossy().into_owned();
        let Some(f) = module.get_function(preserve::original_name(&name)) else { continue };
        let exported =
            f.get_linkage() == Linkage::External && f.as_global_value().get_visibility() == GlobalVisibility::Default;
        if !exported || f.count_basic_blocks() == 0 || f.get_type().is_var_arg() || f.get_type() != copy.get_type() {
            continue;
        }
        let Some(old_entry) = f.get_first_basic_block() else { continue };
        let entry = ctx.prepend_basic_block(old_entry, "carve.entry");
        let via_copy = ctx.insert_basic_block_after(entry, "carve.to.copy");
        // The static allocas stay in the entry block, where the code
        // generator gives them a fixed place in the frame.
        let allocas: Vec<_> = crate::ir::instructions(old_entry)
            .into_iter()
            .take_while(|i| i.get_opcode() == InstructionOpcode::Alloca)
            .collect();
        b.position_at_end(entry);
        for a in allocas {
            a.remove_from_basic_block();
            b.insert_instruction(&a, None);
        }
        let on = b.build_load(i8t, tracking.as_pointer_value(), "carve.on")?.into_int_value();
        let on = b.build_int_compare(IntPredicate::NE, on, i8t.const_zero(), "carve.on.c")?;
        b.build_conditional_branch(on, via_copy, old_entry)?;
        b.position_at_end(via_copy);
        let args: Vec<_> = f.get_param_iter().map(|p| p.into()).collect();
        let call = b.build_call(*copy, &args, "")?;
        call.set_tail_call(true);
        call.set_call_convention(f.get_call_conventions());
        // `byval`, `sret` and the like say how the arguments are passed.
        for k in 0..f.count_params() {
            for a in f.attributes(inkwell::attributes::AttributeLoc::Param(k)) {
                call.add_attribute(inkwell::attributes::AttributeLoc::Param(k), a);
            }
        }
        match call.try_as_basic_value().basic() {
            Some(v) => b.build_return(Some(&v))?,
            None => b.build_return(None)?,
        };
        done += 1;
    }
    Ok(done)
}
