//! Before the optimiser: every function gets an out-of-line copy for
//! carving, and every branch a tag naming it in the source.
//!
//! The optimiser inlines small `static` functions into their callers; a
//! probe placed after it would find no call to carve. So `carve-clang`
//! runs this on the unoptimised bitcode (clang's `-O` level, with
//! `-disable-llvm-passes`): each defined function `F` gets a clone
//! `F..carve`, marked `noinline` and kept whole (`llvm.compiler.used`: the
//! optimiser neither deletes it nor changes its signature), whose calls go
//! to the other clones. The program itself (`F`) is optimised as the user
//! asked, inlining included; carving and unit replay run the clones, which
//! `main` switches to when the runtime carves.
//!
//! Coverage stays comparable between the two: each function carries its
//! source index (the `carve-src` attribute) and each conditional branch or
//! switch a `carve.src` tag `!{i32 function, i32 branch}`, which inlining
//! and cloning copy; after the optimiser, [`crate::edges`] gives every copy
//! of a source edge (in the clone, in each caller it was inlined into) the
//! same counter.

use crate::{clone, ir, Error};
use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::context::Context;
use inkwell::llvm_sys::core as llvm;
use inkwell::module::{Linkage, Module};
use inkwell::values::{AsValueRef, BasicValue, FunctionValue, InstructionOpcode};
use inkwell::AddressSpace;

/// Suffix of the out-of-line copies. Two dots: a static variable `v` of a
/// C function `f` is the symbol `f.v`, which `f..carve` can never be.
pub const SUFFIX: &str = "..carve";
/// String attribute on a function: its source index in the module.
pub const SRC_ATTR: &str = "carve-src";
/// Metadata on a conditional branch or switch: `!{i32 function, i32 branch}`.
pub const BRANCH_KIND: &str = "carve.src";
/// The same tag on a branch's condition (an instruction of the function):
/// a select the optimiser folds the branch into keeps it, and counts its
/// outcomes in the branch's slots (see `edges`).
pub const COND_KIND: &str = "carve.cond";

/// What [`prepare`] did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Prepared {
    pub functions: u32,
    pub branches: u32,
}

/// Tags the module's functions and branches and adds the `..carve` copies.
pub fn prepare<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>) -> Result<Prepared, Error> {
    let funcs: Vec<FunctionValue<'ctx>> = module.get_functions().filter(|f| ir::is_instrumentable(*f)).collect();
    if funcs.is_empty() || funcs.iter().any(|f| source_index(*f).is_some()) {
        return Ok(Prepared::default());
    }
    let kind = ctx.get_kind_id(BRANCH_KIND);
    let cond_kind = ctx.get_kind_id(COND_KIND);
    let i32t = ctx.i32_type();
    let mut done = Prepared::default();
    for (s, f) in funcs.iter().enumerate() {
        f.add_attribute(AttributeLoc::Function, ctx.create_string_attribute(SRC_ATTR, &s.to_string()));
        let mut b = 0u64;
        for bb in f.get_basic_blocks() {
            let Some(t) = bb.get_terminator() else { continue };
            if ir::is_counted_branch(t) {
                let node =
                    ctx.metadata_node(&[i32t.const_int(s as u64, false).into(), i32t.const_int(b, false).into()]);
                t.set_metadata(node, kind).map_err(|e| Error::Verify(e.to_string()))?;
                let cond = (t.get_opcode() == InstructionOpcode::Br)
                    .then(|| t.get_operand(0).and_then(|o| o.value()))
                    .flatten()
                    .and_then(|c| c.as_instruction_value())
                    .filter(|c| c.get_metadata(cond_kind).is_none());
                if let Some(c) = cond {
                    c.set_metadata(node, cond_kind).map_err(|e| Error::Verify(e.to_string()))?;
                }
                b += 1;
            }
        }
        done.branches += b as u32;
    }
    done.functions = funcs.len() as u32;
    let names: Vec<String> = funcs.iter().map(|f| f.get_name().to_string_lossy().into_owned()).collect();
    let clones =
        clone::clone_functions(module, |name, _| names.iter().any(|n| n == name), |name| format!("{name}{SUFFIX}"))?;
    let noinline = Attribute::get_named_enum_kind_id("noinline");
    let alwaysinline = Attribute::get_named_enum_kind_id("alwaysinline");
    let noduplicate = Attribute::get_named_enum_kind_id("noduplicate");
    let noimplicitfloat = Attribute::get_named_enum_kind_id("noimplicitfloat");
    let mut kept = Vec::with_capacity(clones.len());
    for (_, copy) in &clones {
        let Some(c) = module.get_function(copy) else { continue };
        c.remove_enum_attribute(AttributeLoc::Function, alwaysinline);
        c.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(noinline, 0));
        // Nor specialised for constant arguments (a specialisation would be
        // a function carving does not know).
        c.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(noduplicate, 0));
        // Nor vectorised: the symbolic shadow follows scalars only, and a
        // loop summed in vector registers (a checksum) would lose its
        // expression (the vectorisers leave `noimplicitfloat` code alone).
        // Not for a variadic function, whose prologue must still save the
        // vector registers that carry its floating-point arguments.
        if !c.get_type().is_var_arg() {
            c.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(noimplicitfloat, 0));
        }
        kept.push(c);
    }
    keep_whole(ctx, module, &kept);
    Ok(done)
}

/// A function's source index, set by [`prepare`].
pub fn source_index(f: FunctionValue<'_>) -> Option<u32> {
    let a = f.get_string_attribute(AttributeLoc::Function, SRC_ATTR)?;
    a.get_string_value().to_str().ok()?.parse().ok()
}

/// Whether `f` is an out-of-line copy made by [`prepare`].
pub fn is_copy(f: FunctionValue<'_>) -> bool {
    f.get_name().to_bytes().ends_with(SUFFIX.as_bytes()) && source_index(f).is_some()
}

/// The name of the function a copy was made from.
pub fn original_name(copy: &str) -> &str {
    copy.strip_suffix(SUFFIX).unwrap_or(copy)
}

/// Adds `funcs` to `llvm.compiler.used`: the optimiser keeps them, with
/// their signatures, as if something it cannot see called them.
fn keep_whole<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>, funcs: &[FunctionValue<'ctx>]) {
    if funcs.is_empty() {
        return;
    }
    let ptr_t = ctx.ptr_type(AddressSpace::default());
    let mut entries: Vec<_> = funcs.iter().map(|f| f.as_global_value().as_pointer_value().as_value_ref()).collect();
    entries.extend(ir::take_appending(module, "llvm.compiler.used"));
    // SAFETY: every element is a pointer constant.
    let init = unsafe {
        llvm::LLVMConstArray2(
            inkwell::types::AsTypeRef::as_type_ref(&ptr_t),
            entries.as_mut_ptr(),
            entries.len() as u64,
        )
    };
    let g = module.add_global(ptr_t.array_type(entries.len() as u32), None, "llvm.compiler.used");
    g.set_linkage(Linkage::Appending);
    // SAFETY: `init` has the global's type.
    unsafe { llvm::LLVMSetInitializer(g.as_value_ref(), init) };
    g.set_section(Some("llvm.metadata"));
}

/// In the copies, a call to a function of another module goes to that
/// function's copy when the other module has one (a weak definition here
/// calls the function itself when it comes from a library or from a
/// module built without copies; variadic functions are called directly). A call through a pointer
/// goes to the copy of the function it points to (`__carve_copy_of`). Done
/// after the other probes, which know libc's functions by their names.
pub fn redirect_external_calls<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    units: &[FunctionValue<'ctx>],
) -> Result<u32, Error> {
    let b = ctx.create_builder();
    let mut done = 0;
    for f in units {
        for bb in f.get_basic_blocks() {
            for i in ir::instructions(bb) {
                // An invoke too (C++ code with cleanups): its callee is
                // its last operand as well.
                if !matches!(i.get_opcode(), InstructionOpcode::Call | InstructionOpcode::Invoke) {
                    continue;
                }
                let n = i.get_num_operands();
                // SAFETY: the last operand of a call or invoke is its callee.
                let callee = unsafe { llvm::LLVMGetOperand(i.as_value_ref(), n - 1) };
                if callee.is_null() || !unsafe { llvm::LLVMIsAInlineAsm(callee) }.is_null() {
                    continue;
                }
                // SAFETY: a live value.
                if unsafe { llvm::LLVMIsAFunction(callee) }.is_null() {
                    // Through a pointer: the copy of the function it
                    // points to, looked up in the runtime's table.
                    b.position_before(&i);
                    let copy_of = crate::abi::declare(ctx, module, crate::abi::Id::CopyOf);
                    // SAFETY: `callee` is a pointer value of this module.
                    let fp = unsafe { inkwell::values::PointerValue::new(callee) };
                    let target = b.build_call(copy_of, &[fp.into()], "carve.copy")?;
                    let target = target.try_as_basic_value().basic().expect("a pointer");
                    // SAFETY: a pointer replaces the callee pointer.
                    unsafe { llvm::LLVMSetOperand(i.as_value_ref(), n - 1, target.as_value_ref()) };
                    done += 1;
                    continue;
                }
                // SAFETY: `callee` is a function.
                let g = unsafe { FunctionValue::new(callee) }.expect("a function");
                let name = g.get_name().to_string_lossy().into_owned();
                if g.count_basic_blocks() > 0
                    || name.starts_with("llvm.")
                    || name.starts_with(crate::abi::PREFIX)
                    || name.starts_with("__sym_")
                    || name.ends_with(SUFFIX)
                {
                    continue;
                }
                if g.get_type().is_var_arg() {
                    continue; // no copy is replayable; the call stays
                }
                let copy_name = format!("{name}{SUFFIX}");
                let copy = match module.get_function(&copy_name) {
                    Some(c) => c,
                    None => fallback(ctx, module, g, &copy_name)?,
                };
                // SAFETY: a function replaces the callee.
                unsafe { llvm::LLVMSetOperand(i.as_value_ref(), n - 1, copy.as_value_ref()) };
                done += 1;
            }
        }
    }
    Ok(done)
}

/// `G..carve` for a function `g` of another module, as a weak definition:
/// the other module's copy replaces it at link time when that module is in
/// the same link and has one. Otherwise it asks the runtime for the copy
/// of the function `G` is bound to in the process (an instrumented shared
/// library's, `__carve_copy_named`, remembered in a cache of its
/// own) and calls it, or `g` itself (a direct call, through the PLT:
/// taking `g`'s address instead would make the loader resolve it at every
/// start).
fn fallback<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    g: FunctionValue<'ctx>,
    name: &str,
) -> Result<FunctionValue<'ctx>, Error> {
    let f = module.add_function(name, g.get_type(), Some(Linkage::WeakAny));
    f.as_global_value().set_visibility(inkwell::GlobalVisibility::Hidden);
    f.set_call_conventions(g.get_call_conventions());
    let b = ctx.create_builder();
    let entry = ctx.append_basic_block(f, "entry");
    let via = ctx.append_basic_block(f, "copy");
    let direct = ctx.append_basic_block(f, "direct");
    b.position_at_end(entry);
    let copy = named_copy(ctx, module, &b, &g.get_name().to_string_lossy(), 0)?;
    let found = b.build_is_not_null(copy, "carve.found")?;
    b.build_conditional_branch(found, via, direct)?;
    let args: Vec<_> = f.get_param_iter().map(|p| p.into()).collect();
    for (block, callee) in [(via, Some(copy)), (direct, None)] {
        b.position_at_end(block);
        let call = match callee {
            Some(p) => b.build_indirect_call(g.get_type(), p, &args, "")?,
            None => b.build_call(g, &args, "")?,
        };
        call.set_tail_call(true);
        call.set_call_convention(g.get_call_conventions());
        for k in 0..g.count_params() {
            for a in g.attributes(AttributeLoc::Param(k)) {
                call.add_attribute(AttributeLoc::Param(k), a);
            }
        }
        for a in g.attributes(AttributeLoc::Return) {
            call.add_attribute(AttributeLoc::Return, a);
        }
        match call.try_as_basic_value().basic() {
            Some(v) => b.build_return(Some(&v))?,
            None => b.build_return(None)?,
        };
    }
    for k in 0..g.count_params() {
        for a in g.attributes(AttributeLoc::Param(k)) {
            f.add_attribute(AttributeLoc::Param(k), a);
        }
    }
    for a in g.attributes(AttributeLoc::Return) {
        f.add_attribute(AttributeLoc::Return, a);
    }
    Ok(f)
}

/// At `b`, the runtime's answer to "which copy (`sym == 0`) or symbolic
/// clone of the function `callee` is bound to", with a cache of this call
/// site's own: a pointer, null for none.
pub fn named_copy<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    b: &inkwell::builder::Builder<'ctx>,
    callee: &str,
    sym: u64,
) -> Result<inkwell::values::PointerValue<'ctx>, Error> {
    let p = ctx.ptr_type(AddressSpace::default());
    let i32t = ctx.i32_type();
    let lookup = crate::abi::declare(ctx, module, crate::abi::Id::CopyNamed);
    let cache_ty = ctx.struct_type(&[ctx.i64_type().into(), p.into()], false);
    let cache = module.add_global(cache_ty, None, &format!("{}carve.named.{callee}", crate::abi::PREFIX));
    cache.set_linkage(Linkage::Internal);
    cache.set_initializer(&cache_ty.const_zero());
    let name = b.build_global_string_ptr(callee, &format!("{}carve.name", crate::abi::PREFIX))?;
    let call = b.build_call(
        lookup,
        &[name.as_pointer_value().into(), cache.as_pointer_value().into(), i32t.const_int(sym, false).into()],
        "carve.copy",
    )?;
    Ok(call.try_as_basic_value().basic().expect("a pointer").into_pointer_value())
}
