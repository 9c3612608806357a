//! Small IR helpers shared by the probe modules.

use inkwell::basic_block::BasicBlock;
use inkwell::values::{FunctionValue, InstructionOpcode, InstructionValue};

/// Instructions of `bb` in order (collected first, so the caller may insert).
pub fn instructions<'ctx>(bb: BasicBlock<'ctx>) -> Vec<InstructionValue<'ctx>> {
    let mut out = Vec::new();
    let mut cur = bb.get_first_instruction();
    while let Some(i) = cur {
        out.push(i);
        cur = i.get_next_instruction();
    }
    out
}

/// First instruction of `bb` that is neither a PHI nor a landing pad: where
/// a probe at block entry goes.
pub fn first_insertion_point(bb: BasicBlock<'_>) -> Option<InstructionValue<'_>> {
    instructions(bb)
        .into_iter()
        .find(|i| !matches!(i.get_opcode(), InstructionOpcode::Phi | InstructionOpcode::LandingPad))
}

/// Whether `f` has a body this module emits (declarations and
/// `available_externally` copies are left alone, as is our own code).
pub fn is_instrumentable(f: FunctionValue<'_>) -> bool {
    use inkwell::module::Linkage;
    let name = f.get_name().to_bytes();
    f.count_basic_blocks() > 0
        && f.get_linkage() != Linkage::AvailableExternally
        && !name.starts_with(crate::abi::PREFIX.as_bytes())
        && !SANITIZER_PREFIXES.iter().any(|p| name.starts_with(p.as_bytes()))
}

/// Prefixes of the functions sanitizers add to a module (their
/// constructors, their helpers): not the program's.
const SANITIZER_PREFIXES: [&str; 7] = ["asan.", "msan.", "tsan.", "hwasan.", "sancov.", "__asan_", "__sanitizer_"];

use inkwell::context::Context;
use inkwell::llvm_sys::core as llvm;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::values::AsValueRef;

/// In `dest`, PHI entries that came from `old` now come from `new`; with
/// `once`, a single entry is kept (a switch may have reached `dest` through
/// several cases, now all through `new`'s one edge).
pub fn retarget_phis(dest: BasicBlock<'_>, old: BasicBlock<'_>, new: BasicBlock<'_>, once: bool) {
    let phis: Vec<LLVMValueRef> = instructions(dest)
        .into_iter()
        .take_while(|i| i.get_opcode() == InstructionOpcode::Phi)
        .map(|i| i.as_value_ref())
        .collect();
    for phi in phis {
        // SAFETY: `phi` is a live PHI node; the builder is disposed below.
        unsafe {
            let count = llvm::LLVMCountIncoming(phi);
            let mut values = Vec::new();
            let mut blocks = Vec::new();
            let mut moved = false;
            for k in 0..count {
                let mut block = llvm::LLVMGetIncomingBlock(phi, k);
                if block == old.as_mut_ptr() {
                    if moved && once {
                        continue;
                    }
                    moved = true;
                    block = new.as_mut_ptr();
                }
                values.push(llvm::LLVMGetIncomingValue(phi, k));
                blocks.push(block);
            }
            if !moved {
                continue;
            }
            let b = llvm::LLVMCreateBuilderInContext(llvm::LLVMGetTypeContext(llvm::LLVMTypeOf(phi)));
            llvm::LLVMPositionBuilderBefore(b, phi);
            let fresh = llvm::LLVMBuildPhi(b, llvm::LLVMTypeOf(phi), c"".as_ptr());
            llvm::LLVMAddIncoming(fresh, values.as_mut_ptr(), blocks.as_mut_ptr(), values.len() as u32);
            llvm::LLVMReplaceAllUsesWith(phi, fresh);
            let mut len = 0;
            let name = llvm::LLVMGetValueName2(phi, &mut len);
            let name = std::slice::from_raw_parts(name as *const u8, len).to_vec();
            llvm::LLVMInstructionEraseFromParent(phi);
            llvm::LLVMSetValueName2(fresh, name.as_ptr() as *const _, name.len());
            llvm::LLVMDisposeBuilder(b);
        }
    }
}

/// Moves `at` and everything after it into a new block placed after `at`'s
/// block, which is left without a terminator (the caller adds one).
/// Successors' PHIs then name the new block.
pub fn split_before<'ctx>(ctx: &'ctx Context, at: InstructionValue<'ctx>, name: &str) -> BasicBlock<'ctx> {
    let bb = at.get_parent().expect("instruction in a block");
    let new = ctx.insert_basic_block_after(bb, name);
    let mut moving = Vec::new();
    let mut cur = Some(at);
    while let Some(i) = cur {
        moving.push(i);
        cur = i.get_next_instruction();
    }
    // SAFETY: every instruction is live; the builder is disposed below.
    unsafe {
        let b = llvm::LLVMCreateBuilderInContext(ctx.raw());
        llvm::LLVMPositionBuilderAtEnd(b, new.as_mut_ptr());
        for i in &moving {
            let v = i.as_value_ref();
            llvm::LLVMInstructionRemoveFromParent(v);
            llvm::LLVMInsertIntoBuilder(b, v);
        }
        llvm::LLVMDisposeBuilder(b);
    }
    if let Some(term) = new.get_terminator() {
        let raw = term.as_value_ref();
        // SAFETY: `raw` is the live terminator of `new`.
        let n = unsafe { llvm::LLVMGetNumSuccessors(raw) };
        let mut done = Vec::new();
        for k in 0..n {
            // SAFETY: k < n.
            let succ = unsafe { BasicBlock::new(llvm::LLVMGetSuccessor(raw, k)) }.expect("successor");
            if !done.contains(&succ) {
                done.push(succ);
                retarget_phis(succ, bb, new, false);
            }
        }
    }
    new
}

/// Moves the constant-size allocas of `bb` (a function's entry) to its
/// start, so that a split after them leaves them in the entry block;
/// returns the first other instruction.
pub fn hoist_static_allocas<'ctx>(bb: BasicBlock<'ctx>) -> Option<InstructionValue<'ctx>> {
    let insts = instructions(bb);
    let is_static = |i: &InstructionValue<'_>| {
        i.get_opcode() == InstructionOpcode::Alloca
            && i.get_operand(0)
                .and_then(|o| o.value())
                .is_some_and(|v| v.is_int_value() && v.into_int_value().is_const())
    };
    let first_other = insts.iter().position(|i| !is_static(i))?;
    let at = insts[first_other];
    for i in insts[first_other..].iter().filter(|i| is_static(i)) {
        // SAFETY: both are live instructions of `bb`; `i` moves before `at`.
        unsafe {
            llvm::LLVMInstructionRemoveFromParent(i.as_value_ref());
            let b = llvm::LLVMCreateBuilderInContext(llvm::LLVMGetTypeContext(llvm::LLVMTypeOf(at.as_value_ref())));
            llvm::LLVMPositionBuilderBefore(b, at.as_value_ref());
            llvm::LLVMInsertIntoBuilder(b, i.as_value_ref());
            llvm::LLVMDisposeBuilder(b);
        }
    }
    Some(at)
}

/// Whether `t` is a terminator whose outcomes are counted: a conditional
/// branch or a switch, but not a sanitizer's check (clang marks the
/// instructions of UBSan's checks `nosanitize`): its outcomes are "no
/// report" and the report, a failure of its own.
pub fn is_counted_branch(t: InstructionValue<'_>) -> bool {
    let branch = match t.get_opcode() {
        InstructionOpcode::Br => t.get_num_operands() == 3,
        InstructionOpcode::Switch => true,
        _ => false,
    };
    branch && !has_metadata(t, "nosanitize")
}

/// Whether `t` carries metadata of kind `kind`.
pub fn has_metadata(t: InstructionValue<'_>, kind: &str) -> bool {
    let id = t.get_parent().and_then(|b| b.get_parent()).map(|f| f.get_type().get_context().get_kind_id(kind));
    id.is_some_and(|id| t.get_metadata(id).is_some())
}

/// Whether `t` leads to a sanitizer's report (a successor calls a report
/// handler or UBSan's trap): a check whose `nosanitize` mark the optimiser
/// dropped when it rewrote the branch.
pub fn leads_to_report(t: InstructionValue<'_>) -> bool {
    const REPORTS: [&[u8]; 5] =
        [b"__ubsan_handle", b"__asan_report", b"__msan_warning", b"__tsan_report", b"llvm.ubsantrap"];
    let raw = t.as_value_ref();
    // SAFETY: `raw` is a live terminator; its successors are live blocks.
    let n = unsafe { llvm::LLVMGetNumSuccessors(raw) };
    (0..n).any(|i| {
        let Some(bb) = (unsafe { BasicBlock::new(llvm::LLVMGetSuccessor(raw, i)) }) else { return false };
        instructions(bb).into_iter().any(|i| {
            i.get_opcode() == InstructionOpcode::Call && {
                let n = i.get_num_operands();
                // SAFETY: the last operand of a call is its callee.
                let callee = unsafe { llvm::LLVMGetOperand(i.as_value_ref(), n - 1) };
                !callee.is_null() && unsafe { !llvm::LLVMIsAFunction(callee).is_null() } && {
                    let mut len = 0;
                    // SAFETY: a function's name, `len` bytes.
                    let name = unsafe { llvm::LLVMGetValueName2(callee, &mut len) };
                    let name = unsafe { std::slice::from_raw_parts(name as *const u8, len) };
                    REPORTS.iter().any(|r| name.starts_with(r))
                }
            }
        })
    })
}

/// Whether a sanitizer instruments `f` (ASan, MSan, TSan and HWASan mark
/// the functions they instrument): the branches they add after the front
/// end (a check per memory access) have no source tag.
pub fn is_sanitized(f: FunctionValue<'_>) -> bool {
    use inkwell::attributes::{Attribute, AttributeLoc};
    ["sanitize_address", "sanitize_memory", "sanitize_thread", "sanitize_hwaddress"]
        .iter()
        .any(|a| f.get_enum_attribute(AttributeLoc::Function, Attribute::get_named_enum_kind_id(a)).is_some())
}

/// The elements of the appending array global `name` (`llvm.global_ctors`,
/// `llvm.compiler.used`), which is deleted so that the caller can make it
/// anew with more.
pub fn take_appending(module: &inkwell::module::Module<'_>, name: &str) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    if let Some(old) = module.get_global(name) {
        // SAFETY: its initializer is a constant array; the old global goes
        // once its elements are copied.
        unsafe {
            let init = llvm::LLVMGetInitializer(old.as_value_ref());
            if !init.is_null() {
                for k in 0..llvm::LLVMGetNumOperands(init) {
                    out.push(llvm::LLVMGetOperand(init, k as u32));
                }
            }
            old.delete();
        }
    }
    out
}

/// Deletes `f`'s body, leaving a declaration, as LLVM's
/// `Function::deleteBody` does: every reference between the body's values
/// goes before any of them is freed.
///
/// Deleting the blocks one by one is not that: a block's instructions are
/// freed while later blocks still use them (a value used across blocks, a
/// branch back to an earlier block), and freeing the later ones then
/// writes into the freed use lists. That corrupted the heap of the whole
/// compiler, which hung or aborted later, depending on the heap's layout.
pub fn delete_body(f: FunctionValue<'_>) {
    let blocks = f.get_basic_blocks();
    let insts: Vec<InstructionValue<'_>> = blocks.iter().flat_map(|bb| instructions(*bb)).collect();
    // SAFETY: every instruction is live until the loop that erases it; once
    // no instruction has a use, erasing one frees nothing another refers to
    // (its operands are constants, arguments, blocks or other instructions,
    // all still live), and an empty block is used by no instruction.
    unsafe {
        for i in &insts {
            let v = i.as_value_ref();
            let ty = llvm::LLVMTypeOf(v);
            if llvm::LLVMGetTypeKind(ty) != inkwell::llvm_sys::LLVMTypeKind::LLVMVoidTypeKind {
                llvm::LLVMReplaceAllUsesWith(v, llvm::LLVMGetPoison(ty));
            }
        }
        for i in &insts {
            llvm::LLVMInstructionEraseFromParent(i.as_value_ref());
        }
        for bb in blocks {
            llvm::LLVMDeleteBasicBlock(bb.as_mut_ptr());
        }
    }
}
