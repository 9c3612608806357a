//! Clones of a module's functions, linked back into it: the out-of-line
//! copies kept for carving (`F..carve`, [`crate::preserve`]) and the
//! symbolic clones (`F..sym`). The copy shares the module's globals (its own
//! become declarations of them) and calls the clones among themselves; a
//! clone's address never escapes (non-call uses are pointed back at `F`),
//! so function pointers compare as in the original program. A clone is
//! internal when `F` is; a function other modules may call keeps a hidden
//! clone they call too (`calls.rs`), so replay crosses files as the
//! program does.

use crate::Error;
use inkwell::llvm_sys::core as llvm;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::module::{Linkage, Module};
use inkwell::values::{AsValueRef, FunctionValue};

/// Suffix a module-private global takes in the copy (a declaration, bound
/// to the original after linking).
const DECL_SUFFIX: &str = ".carve.symdecl";

/// Clones the module's defined functions that `select` picks (by name,
/// among those with a body) into it, each named `rename(name)`; returns
/// the names of the originals and of their clones.
pub fn clone_functions<'ctx>(
    module: &Module<'ctx>,
    select: impl Fn(&str, FunctionValue<'ctx>) -> bool,
    rename: impl Fn(&str) -> String,
) -> Result<Vec<(String, String)>, Error> {
    let copy = module.clone();
    // SAFETY: the copy is ours; its debug info would duplicate the module's.
    unsafe { inkwell::llvm_sys::debuginfo::LLVMStripModuleDebugInfo(copy.as_mut_ptr()) };
    for name in ["llvm.global_ctors", "llvm.global_dtors", "llvm.used", "llvm.compiler.used"] {
        if let Some(g) = copy.get_global(name) {
            // SAFETY: nothing in the copy refers to these.
            unsafe { g.delete() };
        }
    }
    // SAFETY: aliases of the copy are replaced by what they alias.
    let mut aliases = Vec::new();
    unsafe {
        let mut a = llvm::LLVMGetFirstGlobalAlias(copy.as_mut_ptr());
        while !a.is_null() {
            llvm::LLVMReplaceAllUsesWith(a, llvm::LLVMAliasGetAliasee(a));
            aliases.push(a);
            a = llvm::LLVMGetNextGlobalAlias(a);
        }
    }
    let mut private = Vec::new();
    for g in copy.get_globals() {
        if g.is_declaration() {
            continue;
        }
        let name = g.get_name().to_string_lossy().into_owned();
        if name.is_empty() {
            continue; // an unnamed constant: the copy keeps its own
        }
        if matches!(g.get_linkage(), Linkage::Internal | Linkage::Private) {
            let decl = format!("{name}{DECL_SUFFIX}");
            g.as_pointer_value().set_name(&decl);
            private.push((decl, name));
        }
        // SAFETY: a global without initializer is a declaration.
        unsafe {
            llvm::LLVMSetInitializer(g.as_value_ref(), std::ptr::null_mut());
            inkwell::llvm_sys::comdat::LLVMSetComdat(g.as_value_ref(), std::ptr::null_mut());
        }
        g.set_linkage(Linkage::External);
    }
    let mut clones = Vec::new();
    for f in copy.get_functions() {
        if f.count_basic_blocks() == 0 {
            continue;
        }
        let name = f.get_name().to_string_lossy().into_owned();
        if select(&name, f) {
            let sym = rename(&name);
            let linkage = clone_linkage(f.get_linkage());
            f.as_global_value().set_name(&sym);
            // External while linking (the linker drops unreferenced
            // internal functions); after, as `clone_linkage` says.
            f.set_linkage(Linkage::External);
            // SAFETY: a clone belongs to no comdat.
            unsafe { inkwell::llvm_sys::comdat::LLVMSetComdat(f.as_value_ref(), std::ptr::null_mut()) };
            clones.push((name, sym, linkage));
        } else {
            // Bound to the module's own definition (a module-private one
            // through a temporary name, as for globals).
            if matches!(f.get_linkage(), Linkage::Internal | Linkage::Private) {
                let decl = format!("{name}{DECL_SUFFIX}");
                f.as_global_value().set_name(&decl);
                private.push((decl, name.clone()));
            }
            crate::ir::delete_body(f);
            f.set_linkage(Linkage::External);
            // SAFETY: a declaration has no personality or comdat.
            unsafe {
                inkwell::llvm_sys::comdat::LLVMSetComdat(f.as_value_ref(), std::ptr::null_mut());
                llvm::LLVMSetPersonalityFn(f.as_value_ref(), std::ptr::null_mut());
            }
        }
    }
    retire_aliases(&copy, &aliases);
    module.link_in_module(copy).map_err(|e| Error::Verify(format!("linking the symbolic clones: {e}")))?;
    for (decl, name) in private {
        if let (Some(d), Some(g)) = (module.get_global(&decl), module.get_global(&name)) {
            // SAFETY: same type (a pointer); the declaration goes.
            unsafe {
                llvm::LLVMReplaceAllUsesWith(d.as_value_ref(), g.as_value_ref());
                d.delete();
            }
        } else if let (Some(d), Some(g)) = (module.get_function(&decl), module.get_function(&name)) {
            // SAFETY: same type (a pointer); the declaration goes.
            unsafe {
                llvm::LLVMReplaceAllUsesWith(d.as_value_ref(), g.as_value_ref());
                d.delete();
            }
        }
    }
    for (name, sym, linkage) in &clones {
        if let (Some(f), Some(s)) = (module.get_function(name), module.get_function(sym)) {
            s.set_linkage(*linkage);
            if *linkage != Linkage::Internal {
                s.as_global_value().set_visibility(inkwell::GlobalVisibility::Hidden);
            }
            point_back(f, s);
        }
    }
    Ok(clones.into_iter().map(|(name, sym, _)| (name, sym)).collect())
}

/// Makes the copy's aliases, unused now, harmless: private, renamed, and
/// aliasing a private byte of their own (what they aliased may be a
/// declaration by now). The C interface cannot erase an alias:
/// `LLVMDeleteGlobal` takes it for a global variable, and freeing it as
/// one read past its end (a crash on libxml2's `entities.c`). The dead
/// aliases go with the optimiser's dead-global pass, or stay as private
/// symbols no object file shows.
fn retire_aliases(copy: &Module<'_>, aliases: &[LLVMValueRef]) {
    if aliases.is_empty() {
        return;
    }
    let ctx = copy.get_context();
    let byte = copy.add_global(ctx.i8_type(), None, "carve.retired");
    byte.set_linkage(Linkage::Private);
    byte.set_initializer(&ctx.i8_type().const_zero());
    byte.set_constant(true);
    for &a in aliases {
        // SAFETY: `a` is a live alias of `copy` without uses; a private
        // global of `copy` is a valid aliasee.
        unsafe {
            llvm::LLVMAliasSetAliasee(a, byte.as_value_ref());
            llvm::LLVMSetLinkage(a, inkwell::llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
            llvm::LLVMSetValueName2(a, c"carve.retired.alias".as_ptr(), "carve.retired.alias".len());
        }
    }
}

/// The linkage of a function's clone: a function other modules may call
/// has a clone they may call too (`calls.rs` refers to it weakly, so a
/// module built without clones still links); the rest are internal.
fn clone_linkage(original: Linkage) -> Linkage {
    match original {
        Linkage::External => Linkage::External,
        Linkage::WeakAny | Linkage::LinkOnceAny => Linkage::WeakAny,
        Linkage::WeakODR | Linkage::LinkOnceODR => Linkage::WeakODR,
        _ => Linkage::Internal,
    }
}

/// Uses of `sym` other than calling it now use `f`.
fn point_back(f: FunctionValue<'_>, sym: FunctionValue<'_>) {
    let (fv, sv) = (f.as_value_ref(), sym.as_value_ref());
    let mut fixes: Vec<(LLVMValueRef, u32)> = Vec::new();
    // SAFETY: walking the use list of a live value; edits come after.
    unsafe {
        let mut u = llvm::LLVMGetFirstUse(sv);
        while !u.is_null() {
            let user = llvm::LLVMGetUser(u);
            if !llvm::LLVMIsAInstruction(user).is_null() {
                // A call or an invoke (C++ code with cleanups) of the clone.
                let is_call = !llvm::LLVMIsACallInst(user).is_null() || !llvm::LLVMIsAInvokeInst(user).is_null();
                let callee = is_call.then(|| llvm::LLVMGetCalledValue(user));
                if callee != Some(sv) {
                    for i in 0..llvm::LLVMGetNumOperands(user) as u32 {
                        if llvm::LLVMGetOperand(user, i) == sv {
                            fixes.push((user, i));
                        }
                    }
                }
            }
            u = llvm::LLVMGetNextUse(u);
        }
        for (user, i) in fixes {
            llvm::LLVMSetOperand(user, i, fv);
        }
    }
}
