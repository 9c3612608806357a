//! Call probes and replay trampolines.
//!
//! At entry, when the runtime tracks (`__carve_tracking != 0`), a function
//! hands it its arguments (as 64-bit words, with their kinds) and the stack
//! objects of its frame (static allocas and `byval` copies):
//! `tok = __carve_enter(area, k, args, nargs, kinds, frame, nframe)`. Every
//! `ret` then calls `__carve_leave(tok, ret, has_ret)` when `tok != 0`. With
//! tracking off the cost is a load, a compare and a branch per call.
//!
//! For each function whose arguments it can represent, a trampoline
//! `i64 __carve_tramp.K(ptr args)` calls it with arguments read from an
//! array: unit replay calls functions through it.

use crate::{abi, ir, Error};
use inkwell::attributes::AttributeLoc;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::targets::TargetData;
use inkwell::types::{AnyType, AnyTypeEnum, BasicTypeEnum};
use inkwell::values::{BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue, IntValue, PointerValue};
use inkwell::AddressSpace;
use model::snapshot::{ARG_F32, ARG_F64, ARG_INT, ARG_PTR};

/// Most parameters a carvable function may have.
const MAX_PARAMS: usize = 64;

/// How each parameter is recorded: `(kind, size)`; `None` when some
/// parameter cannot be represented (vectors, `long double`, ...).
fn param_kinds(f: FunctionValue<'_>) -> Option<Vec<(u8, u8)>> {
    if f.get_type().is_var_arg() || f.count_params() as usize > MAX_PARAMS {
        return None;
    }
    f.get_param_iter().map(|p| kind_of(p.get_type().as_any_type_enum())).collect()
}

fn kind_of(t: AnyTypeEnum<'_>) -> Option<(u8, u8)> {
    match t {
        AnyTypeEnum::IntType(i) if i.get_bit_width() <= 64 => {
            Some((ARG_INT, i.get_bit_width().div_ceil(8).max(1) as u8))
        }
        AnyTypeEnum::PointerType(_) => Some((ARG_PTR, 8)),
        AnyTypeEnum::FloatType(f) if f.get_bit_width() == 32 => Some((ARG_F32, 4)),
        AnyTypeEnum::FloatType(f) if f.get_bit_width() == 64 => Some((ARG_F64, 8)),
        _ => None,
    }
}

/// Adds the probes to `funcs` (each with its function id) and returns each
/// one's trampoline (`None` for functions that cannot be replayed).
pub fn instrument<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    funcs: &[(FunctionValue<'ctx>, u32)],
) -> Result<Vec<Option<FunctionValue<'ctx>>>, Error> {
    let td = TargetData::create(&module.get_data_layout().as_str().to_string_lossy());
    let b = ctx.create_builder();
    let i8t = ctx.i8_type();
    let i32t = ctx.i32_type();
    let i64t = ctx.i64_type();
    let ptr_t = ctx.ptr_type(AddressSpace::default());
    let tracking = module.get_global(abi::TRACKING).unwrap_or_else(|| module.add_global(i8t, None, abi::TRACKING));
    let enter = abi::declare(ctx, module, abi::Id::Enter);
    let leave = abi::declare(ctx, module, abi::Id::Leave);
    let area = module.get_global(abi::AREA).expect("the area global exists");
    let mut tramps = Vec::with_capacity(funcs.len());
    for &(f, k) in funcs {
        let k = k as usize;
        let kinds = param_kinds(f);
        let entry = f.get_first_basic_block().expect("a body");
        let insts = ir::instructions(entry);
        let frame = frame_objects(ctx, f, &insts, &td);
        // Split after the last static alloca, so every alloca stays in entry.
        let last_alloca = insts.iter().rposition(|i| i.get_opcode() == InstructionOpcode::Alloca);
        let split_at = match last_alloca {
            Some(p) => insts.get(p + 1).copied(),
            None => ir::first_insertion_point(entry),
        };
        let Some(split_at) = split_at else {
            tramps.push(None);
            continue;
        };
        let rets: Vec<InstructionValue<'ctx>> = f
            .get_basic_blocks()
            .iter()
            .filter_map(|bb| bb.get_terminator())
            .filter(|t| t.get_opcode() == InstructionOpcode::Return && !after_musttail(*t))
            .collect();

        b.position_before(&split_at);
        let tok_slot = b.build_alloca(i64t, "carve.tok")?;
        let nargs = kinds.as_ref().map_or(0, Vec::len);
        let args_arr = b.build_alloca(i64t.array_type(nargs.max(1) as u32), "carve.args")?;
        let frame_arr = b.build_alloca(i64t.array_type((2 * frame.len()).max(1) as u32), "carve.frame")?;
        b.build_store(tok_slot, i64t.const_zero())?;
        let on = b.build_load(i8t, tracking.as_pointer_value(), "carve.on")?.into_int_value();
        let on = b.build_int_compare(inkwell::IntPredicate::NE, on, i8t.const_zero(), "carve.on.c")?;
        let body = ir::split_before(ctx, split_at, "carve.body");
        let probe = ctx.insert_basic_block_after(entry, "carve.enter");
        b.position_at_end(entry);
        b.build_conditional_branch(on, probe, body)?;

        b.position_at_end(probe);
        let kinds_ptr = match &kinds {
            Some(ks) => {
                for (i, p) in f.get_param_iter().enumerate() {
                    let slot =
                        unsafe { b.build_in_bounds_gep(i64t, args_arr, &[i64t.const_int(i as u64, false)], "")? };
                    b.build_store(slot, to_word(&b, ctx, p)?)?;
                }
                let bytes: Vec<u8> = ks.iter().flat_map(|&(kind, size)| [kind, size]).collect();
                let g = module.add_global(i8t.array_type(bytes.len() as u32), None, "carve.kinds");
                g.set_linkage(Linkage::Private);
                g.set_constant(true);
                g.set_initializer(&ctx.const_string(&bytes, false));
                g.as_pointer_value()
            }
            None => ptr_t.const_null(),
        };
        for (j, (ptr, size)) in frame.iter().enumerate() {
            let at = |n: u64| unsafe { b.build_in_bounds_gep(i64t, frame_arr, &[i64t.const_int(n, false)], "") };
            b.build_store(at(2 * j as u64)?, b.build_ptr_to_int(*ptr, i64t, "")?)?;
            b.build_store(at(2 * j as u64 + 1)?, *size)?;
        }
        let base = b.build_load(ptr_t, area.as_pointer_value(), "carve.area")?;
        let tok = b.build_call(
            enter,
            &[
                base.into(),
                i32t.const_int(k as u64, false).into(),
                args_arr.into(),
                i32t.const_int(nargs as u64, false).into(),
                kinds_ptr.into(),
                frame_arr.into(),
                i32t.const_int(frame.len() as u64, false).into(),
            ],
            "carve.tok.v",
        )?;
        let tok = tok.try_as_basic_value().basic().expect("enter returns a value");
        b.build_store(tok_slot, tok)?;
        b.build_unconditional_branch(body)?;

        for ret in rets {
            let ret_block = ir::split_before(ctx, ret, "carve.ret");
            let pre = ret_block.get_previous_basic_block().expect("split leaves a block before");
            let leave_bb = ctx.insert_basic_block_after(pre, "carve.leave");
            b.position_at_end(pre);
            let t = b.build_load(i64t, tok_slot, "carve.t")?.into_int_value();
            let nz = b.build_int_compare(inkwell::IntPredicate::NE, t, i64t.const_zero(), "")?;
            b.build_conditional_branch(nz, leave_bb, ret_block)?;
            b.position_at_end(leave_bb);
            let (word, has) = match ret.get_operand(0).and_then(|o| o.value()) {
                Some(v) => match to_word(&b, ctx, v) {
                    Ok(w) if v.is_pointer_value() => (w, u64::from(model::snapshot::RET_POINTER)),
                    Ok(w) if kind_of(v.get_type().as_any_type_enum()).is_some() => {
                        (w, u64::from(model::snapshot::RET_VALUE))
                    }
                    _ => (i64t.const_zero(), 0),
                },
                None => (i64t.const_zero(), 0),
            };
            b.build_call(leave, &[t.into(), word.into(), i32t.const_int(has, false).into()], "")?;
            b.build_unconditional_branch(ret_block)?;
        }
        tramps.push(match kinds {
            Some(ks) => Some(trampoline(ctx, module, f, k, &ks)?),
            None => None,
        });
    }
    Ok(tramps)
}

/// `ret` right after a `musttail` call must stay right after it.
fn after_musttail(ret: InstructionValue<'_>) -> bool {
    ret.get_previous_instruction().is_some_and(|p| {
        p.get_opcode() == InstructionOpcode::Call
            && p.get_tail_call_kind().ok() == Some(inkwell::values::LLVMTailCallKind::LLVMTailCallKindMustTail)
    })
}

/// The static allocas of the entry block and the `byval` parameters:
/// `(address, size in bytes)`.
fn frame_objects<'ctx>(
    ctx: &'ctx Context,
    f: FunctionValue<'ctx>,
    entry: &[InstructionValue<'ctx>],
    td: &TargetData,
) -> Vec<(PointerValue<'ctx>, IntValue<'ctx>)> {
    let i64t = ctx.i64_type();
    let mut out = Vec::new();
    for i in entry.iter().filter(|i| i.get_opcode() == InstructionOpcode::Alloca) {
        let Ok(ty) = i.get_allocated_type() else { continue };
        let count = match i.get_operand(0).and_then(|o| o.value()) {
            Some(BasicValueEnum::IntValue(n)) => match n.get_zero_extended_constant() {
                Some(c) => c,
                None => continue,
            },
            _ => 1,
        };
        let size = td.get_abi_size(&ty) * count;
        let ptr: PointerValue<'ctx> = unsafe { PointerValue::new(inkwell::values::AsValueRef::as_value_ref(i)) };
        out.push((ptr, i64t.const_int(size, false)));
    }
    let byval = inkwell::attributes::Attribute::get_named_enum_kind_id("byval");
    for (p, param) in f.get_param_iter().enumerate() {
        if let Some(attr) = f.get_enum_attribute(AttributeLoc::Param(p as u32), byval) {
            if attr.is_type() {
                let ty = attr.get_type_value();
                if let Ok(bt) = BasicTypeEnum::try_from(ty) {
                    out.push((param.into_pointer_value(), i64t.const_int(td.get_abi_size(&bt), false)));
                }
            }
        }
    }
    out
}

/// A value as a 64-bit word (integers zero-extended, floats as bits).
fn to_word<'ctx>(b: &Builder<'ctx>, ctx: &'ctx Context, v: BasicValueEnum<'ctx>) -> Result<IntValue<'ctx>, Error> {
    let i64t = ctx.i64_type();
    Ok(match v {
        BasicValueEnum::IntValue(i) if i.get_type().get_bit_width() < 64 => b.build_int_z_extend(i, i64t, "")?,
        BasicValueEnum::IntValue(i) if i.get_type().get_bit_width() == 64 => i,
        BasicValueEnum::PointerValue(p) => b.build_ptr_to_int(p, i64t, "")?,
        BasicValueEnum::FloatValue(x) if x.get_type() == ctx.f32_type() => {
            let bits = b.build_bit_cast(x, ctx.i32_type(), "")?.into_int_value();
            b.build_int_z_extend(bits, i64t, "")?
        }
        BasicValueEnum::FloatValue(x) if x.get_type() == ctx.f64_type() => {
            b.build_bit_cast(x, i64t, "")?.into_int_value()
        }
        _ => i64t.const_zero(),
    })
}

/// `i64 __carve_tramp.K(ptr args)`: calls `f` with `args[i]` converted to
/// each parameter's type, with the parameters' attributes (`byval`, `sret`,
/// extensions), and returns the result as a word.
fn trampoline<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    f: FunctionValue<'ctx>,
    k: usize,
    kinds: &[(u8, u8)],
) -> Result<FunctionValue<'ctx>, Error> {
    let i64t = ctx.i64_type();
    let ptr_t = ctx.ptr_type(AddressSpace::default());
    let t = module.add_function(
        &format!("{}tramp.{k}", abi::PREFIX),
        i64t.fn_type(&[ptr_t.into()], false),
        Some(Linkage::Internal),
    );
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(t, "entry"));
    let args = t.get_first_param().expect("one parameter").into_pointer_value();
    let mut call_args = Vec::with_capacity(kinds.len());
    for (i, param) in f.get_param_iter().enumerate() {
        let ty = param.get_type();
        let slot = unsafe { b.build_in_bounds_gep(i64t, args, &[i64t.const_int(i as u64, false)], "")? };
        let w = b.build_load(i64t, slot, "")?.into_int_value();
        let v: BasicValueEnum<'ctx> = match (kinds[i].0, ty) {
            (ARG_PTR, _) => b.build_int_to_ptr(w, ptr_t, "")?.into(),
            (ARG_F32, _) => b.build_bit_cast(b.build_int_truncate(w, ctx.i32_type(), "")?, ctx.f32_type(), "")?,
            (ARG_F64, _) => b.build_bit_cast(w, ctx.f64_type(), "")?,
            (_, BasicTypeEnum::IntType(it)) if it.get_bit_width() < 64 => b.build_int_truncate(w, it, "")?.into(),
            _ => w.into(),
        };
        call_args.push(v.into());
    }
    let call = b.build_call(f, &call_args, "")?;
    call.set_call_convention(f.get_call_conventions());
    for i in 0..kinds.len() as u32 {
        for a in f.attributes(AttributeLoc::Param(i)) {
            call.add_attribute(AttributeLoc::Param(i), a);
        }
    }
    let ret = match call.try_as_basic_value().basic() {
        Some(v) if kind_of(v.get_type().as_any_type_enum()).is_some() => to_word(&b, ctx, v)?,
        _ => i64t.const_zero(),
    };
    b.build_return(Some(&ret))?;
    Ok(t)
}
