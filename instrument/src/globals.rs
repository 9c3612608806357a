//! Globals: the table of the module's globals (address, size, name) handed
//! to the runtime, and store probes: a store, memory intrinsic
//! or call whose pointer derives from a global sets that global's byte in
//! the module's dirty array, so snapshots restore only what changed.

use crate::{ir, Error};
use inkwell::context::Context;
use inkwell::llvm_sys::core as llvm;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::module::{Linkage, Module};
use inkwell::targets::TargetData;
use inkwell::values::{AsValueRef, FunctionValue, GlobalValue, InstructionOpcode};
use inkwell::AddressSpace;

/// The module's writable globals and its dirty array.
pub struct Globals<'ctx> {
    pub table: Vec<(GlobalValue<'ctx>, u64)>,
    pub dirty: Option<GlobalValue<'ctx>>,
    pub probes: u32,
}

/// Whether the runtime should know `g`: a defined global of the program
/// (not ours, not LLVM's). Constants (string literals...) are in the table
/// too: pointers to them must be relocated, though they never change.
fn tracked(g: &GlobalValue<'_>) -> bool {
    let name = g.get_name().to_string_lossy();
    g.get_initializer().is_some()
        && !name.starts_with("llvm.")
        && !name.starts_with(crate::abi::PREFIX)
        && !name.starts_with("carve.")
        && !name.starts_with("__odr_asan")
        && !name.starts_with("___asan")
        && !name.starts_with("__asan")
        && g.get_linkage() != Linkage::AvailableExternally
}

/// The size of `g` as the program declared it. AddressSanitizer pads each
/// global it instruments with its redzone, as `{ T, [N x i8] }`: the
/// program's object is the `T`, and the redzone is no part of it (reading
/// it trips ASan, restoring it would write ASan's bytes).
fn declared_size(g: &GlobalValue<'_>, td: &TargetData, asan: bool) -> u64 {
    use inkwell::types::{AnyTypeEnum, BasicTypeEnum};
    let ty = g.get_value_type();
    if asan {
        if let AnyTypeEnum::StructType(st) = ty {
            let fields = st.get_field_types();
            if let [object, BasicTypeEnum::ArrayType(pad)] = fields.as_slice() {
                if pad.get_element_type().is_int_type() && pad.get_element_type().into_int_type().get_bit_width() == 8 {
                    return td.get_abi_size(object);
                }
            }
        }
    }
    match BasicTypeEnum::try_from(ty) {
        Ok(t) => td.get_abi_size(&t),
        Err(_) => ty.size_of().and_then(|s| s.get_zero_extended_constant()).unwrap_or(0),
    }
}

pub fn instrument<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    funcs: &[FunctionValue<'ctx>],
) -> Result<Globals<'ctx>, Error> {
    let td = TargetData::create(&module.get_data_layout().as_str().to_string_lossy());
    let asan = module.get_function("asan.module_ctor").is_some();
    let table: Vec<(GlobalValue<'ctx>, u64)> = module
        .get_globals()
        .filter(tracked)
        .map(|g| {
            let size = declared_size(&g, &td, asan);
            (g, size)
        })
        .filter(|(_, size)| *size > 0)
        .collect();
    if table.is_empty() {
        return Ok(Globals { table, dirty: None, probes: 0 });
    }
    let i8t = ctx.i8_type();
    let arr_t = i8t.array_type(table.len() as u32);
    let dirty = module.add_global(arr_t, Some(AddressSpace::default()), "carve.dirty");
    dirty.set_linkage(Linkage::Internal);
    dirty.set_initializer(&arr_t.const_zero());
    // Constants are never written: only writable globals get dirty marks.
    let index = |v: LLVMValueRef| table.iter().position(|(g, _)| g.as_value_ref() == v && !g.is_constant());
    let b = ctx.create_builder();
    let mut probes = 0;
    for f in funcs {
        for bb in f.get_basic_blocks() {
            for inst in ir::instructions(bb) {
                let pointers: Vec<LLVMValueRef> = match inst.get_opcode() {
                    InstructionOpcode::Store => operand(inst.as_value_ref(), 1).into_iter().collect(),
                    InstructionOpcode::Call => {
                        // Every pointer argument: memcpy, strcpy, fgets... may write.
                        let n = inst.get_num_operands().saturating_sub(1);
                        (0..n).filter_map(|i| operand(inst.as_value_ref(), i)).collect()
                    }
                    _ => continue,
                };
                let mut marked = Vec::new();
                for p in pointers {
                    let Some(j) = index(base_of(p)) else { continue };
                    if marked.contains(&j) {
                        continue;
                    }
                    marked.push(j);
                    b.position_before(&inst);
                    let i64t = ctx.i64_type();
                    // SAFETY: j < the array's length.
                    let slot = unsafe {
                        b.build_in_bounds_gep(
                            arr_t,
                            dirty.as_pointer_value(),
                            &[i64t.const_zero(), i64t.const_int(j as u64, false)],
                            "",
                        )?
                    };
                    b.build_store(slot, i8t.const_int(1, false))?;
                    probes += 1;
                }
            }
        }
    }
    Ok(Globals { table, dirty: Some(dirty), probes })
}

fn operand(v: LLVMValueRef, i: u32) -> Option<LLVMValueRef> {
    // SAFETY: reading an operand of a live value, checked against the count.
    unsafe {
        if (llvm::LLVMGetNumOperands(v) as u32) <= i {
            return None;
        }
        let o = llvm::LLVMGetOperand(v, i);
        (!o.is_null()
            && llvm::LLVMGetTypeKind(llvm::LLVMTypeOf(o)) == inkwell::llvm_sys::LLVMTypeKind::LLVMPointerTypeKind)
            .then_some(o)
    }
}

/// Follows GEPs and casts (instructions or constant expressions) to the
/// value a pointer is derived from.
fn base_of(mut v: LLVMValueRef) -> LLVMValueRef {
    for _ in 0..32 {
        // SAFETY: inspecting live values.
        unsafe {
            let op = if !llvm::LLVMIsAInstruction(v).is_null() {
                llvm::LLVMGetInstructionOpcode(v)
            } else if !llvm::LLVMIsAConstantExpr(v).is_null() {
                llvm::LLVMGetConstOpcode(v)
            } else {
                return v;
            };
            match op {
                LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => {
                    v = llvm::LLVMGetOperand(v, 0)
                }
                _ => return v,
            }
        }
    }
    v
}
