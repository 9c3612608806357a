//! The shadow of one symbolic clone. Every integer and pointer value gets a
//! shadow (an `i32` expression id; a pointer's is its address, see
//! [`super::pointers`]) computed by a `__sym_*` call right after it; values
//! known to be concrete at compile time (constants, results of uninstrumented
//! instructions) have none, and operations on them only are not
//! instrumented. Blocks are visited in reverse post-order, so an operand's
//! shadow exists before its users'; PHIs get shadow PHIs.

use super::abi::Abi;
use crate::{ir, Error};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::types::{AnyType, AnyTypeEnum, BasicTypeEnum};
use inkwell::values::{
    AnyValue, AsValueRef, BasicMetadataValueEnum, BasicValueEnum, FunctionValue, InstructionOpcode as Op,
    InstructionValue, IntValue, PhiValue, PointerValue,
};
use inkwell::IntPredicate;
use model::trace::*;
use std::collections::{HashMap, HashSet};

pub struct Shadower<'a, 'ctx> {
    pub(super) ctx: &'ctx Context,
    pub(super) module: &'a Module<'ctx>,
    pub(super) abi: &'a Abi<'ctx>,
    pub(super) td: &'a TargetData,
    pub(super) b: Builder<'ctx>,
    pub(super) map: HashMap<LLVMValueRef, IntValue<'ctx>>,
    /// The shadows of the fields of `{iN, i1}` results (the arithmetic
    /// intrinsics that also say whether they overflowed), for the
    /// `extractvalue`s that take them apart.
    pub(super) fields: HashMap<LLVMValueRef, [Option<IntValue<'ctx>>; 2]>,
    site_base: u32,
    next_site: u32,
}

/// Width of an integer type the shadow handles (1 to 64 bits).
pub(super) fn int_width(t: AnyTypeEnum<'_>) -> Option<u32> {
    match t {
        AnyTypeEnum::IntType(i) if i.get_bit_width() <= 64 => Some(i.get_bit_width()),
        _ => None,
    }
}

/// Width of a value that gets a shadow: an integer the shadow handles,
/// or a pointer (its address, 64 bits: a pointer computed from symbolic
/// offsets compares symbolically; it is concretised where it is used to
/// reach memory).
pub(super) fn shadow_width(t: AnyTypeEnum<'_>) -> Option<u32> {
    match t {
        AnyTypeEnum::PointerType(_) => Some(64),
        t => int_width(t),
    }
}

/// Operand `k` of `i` when it is a first-class value (not metadata, a
/// label, a token or inline assembly, which inkwell cannot represent).
pub(super) fn operand<'ctx>(i: InstructionValue<'ctx>, k: u32) -> Option<BasicValueEnum<'ctx>> {
    use inkwell::llvm_sys::core as llvm;
    use inkwell::llvm_sys::LLVMTypeKind as K;
    if k >= i.get_num_operands() {
        return None;
    }
    // SAFETY: reading operand `k` (in range) of a live instruction.
    unsafe {
        let v = llvm::LLVMGetOperand(i.as_value_ref(), k);
        if v.is_null() || llvm::LLVMValueIsBasicBlock(v) != 0 || !llvm::LLVMIsAInlineAsm(v).is_null() {
            return None;
        }
        match llvm::LLVMGetTypeKind(llvm::LLVMTypeOf(v)) {
            K::LLVMIntegerTypeKind
            | K::LLVMPointerTypeKind
            | K::LLVMFloatTypeKind
            | K::LLVMDoubleTypeKind
            | K::LLVMHalfTypeKind
            | K::LLVMBFloatTypeKind
            | K::LLVMX86_FP80TypeKind
            | K::LLVMFP128TypeKind
            | K::LLVMPPC_FP128TypeKind
            | K::LLVMStructTypeKind
            | K::LLVMArrayTypeKind
            | K::LLVMVectorTypeKind
            | K::LLVMScalableVectorTypeKind => Some(BasicValueEnum::new(v)),
            _ => None,
        }
    }
}

fn fnv(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    h
}

impl<'a, 'ctx> Shadower<'a, 'ctx> {
    pub fn new(ctx: &'ctx Context, module: &'a Module<'ctx>, abi: &'a Abi<'ctx>, td: &'a TargetData) -> Self {
        Shadower {
            ctx,
            module,
            abi,
            td,
            b: ctx.create_builder(),
            map: HashMap::new(),
            fields: HashMap::new(),
            site_base: 0,
            next_site: 0,
        }
    }

    /// A site id for a branch or switch: stable for a given function
    /// name and position.
    pub(super) fn site(&mut self) -> u32 {
        self.next_site += 1;
        self.site_base ^ self.next_site.wrapping_mul(0x9e37_79b9)
    }

    /// The counter ids of a branch's or switch's successors, in successor
    /// order (`edges::SLOTS_KIND`); empty when it has no counters.
    fn slots(&self, i: InstructionValue<'ctx>) -> Vec<u32> {
        let kind = self.ctx.get_kind_id(crate::edges::SLOTS_KIND);
        let values = i.get_metadata(kind).and_then(|m| m.get_node_values()).unwrap_or_default();
        values
            .into_iter()
            .map(|v| match v {
                BasicMetadataValueEnum::IntValue(x) => x.get_zero_extended_constant().map_or(NO_SLOT, |x| x as u32),
                _ => NO_SLOT,
            })
            .collect()
    }

    /// The module's map pointer's address (the runtime reads where the
    /// module's counters are).
    fn area(&self) -> PointerValue<'ctx> {
        match self.module.get_global(crate::abi::AREA) {
            Some(g) => g.as_pointer_value(),
            None => self.ctx.ptr_type(inkwell::AddressSpace::default()).const_null(),
        }
    }

    pub(super) fn shadow(&self, v: BasicValueEnum<'ctx>) -> Option<IntValue<'ctx>> {
        self.map.get(&v.as_value_ref()).copied()
    }

    pub(super) fn zero(&self) -> IntValue<'ctx> {
        self.ctx.i32_type().const_zero()
    }

    pub(super) fn or_zero(&self, s: Option<IntValue<'ctx>>) -> IntValue<'ctx> {
        s.unwrap_or_else(|| self.zero())
    }

    pub(super) fn i32c(&self, v: u64) -> IntValue<'ctx> {
        self.ctx.i32_type().const_int(v, false)
    }

    /// `v` as an `i64` (zero-extended; pointers as their address).
    pub(super) fn wide(&self, v: BasicValueEnum<'ctx>, signed: bool) -> Result<IntValue<'ctx>, Error> {
        let i64t = self.ctx.i64_type();
        Ok(match v {
            BasicValueEnum::IntValue(x) if x.get_type().get_bit_width() == 64 => x,
            BasicValueEnum::IntValue(x) if signed => self.b.build_int_s_extend(x, i64t, "")?,
            BasicValueEnum::IntValue(x) => self.b.build_int_z_extend(x, i64t, "")?,
            BasicValueEnum::PointerValue(p) => self.b.build_ptr_to_int(p, i64t, "")?,
            _ => i64t.const_zero(),
        })
    }

    pub(super) fn call(
        &self,
        f: FunctionValue<'ctx>,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Option<IntValue<'ctx>>, Error> {
        let args: Vec<_> = args.iter().map(|&a| a.into()).collect();
        let c = self.b.build_call(f, &args, "")?;
        Ok(c.try_as_basic_value().basic().map(|v| v.into_int_value()))
    }

    /// Positions the builder right after `i` (after all PHIs for a PHI).
    pub(super) fn after(&self, i: InstructionValue<'ctx>) {
        let bb = i.get_parent().expect("in a block");
        let at = if i.get_opcode() == Op::Phi { ir::first_insertion_point(bb) } else { i.get_next_instruction() };
        match at {
            Some(n) => self.b.position_before(&n),
            None => self.b.position_at_end(bb),
        }
    }

    /// Instruments `f` (a symbolic clone).
    pub fn instrument(&mut self, f: FunctionValue<'ctx>) -> Result<(), Error> {
        self.map.clear();
        self.site_base = fnv(f.get_name().to_bytes());
        self.next_site = 0;
        let Some(entry) = f.get_first_basic_block() else { return Ok(()) };
        let blocks = rpo(entry);
        match ir::first_insertion_point(entry) {
            Some(at) => self.b.position_before(&at),
            None => self.b.position_at_end(entry),
        }
        for (k, p) in f.get_param_iter().enumerate().take(super::MAX_PARAMS) {
            if shadow_width(p.get_type().as_any_type_enum()).is_some() {
                let s = self.call(self.abi.get_param, &[self.i32c(k as u64).into()])?.expect("returns i32");
                self.map.insert(p.as_value_ref(), s);
            }
        }
        let mut phis = Vec::new();
        for &bb in &blocks {
            for i in ir::instructions(bb) {
                if i.get_opcode() == Op::Phi && shadow_width(i.get_type()).is_some() {
                    self.after(i);
                    let sp = self.b.build_phi(self.ctx.i32_type(), "")?;
                    self.map.insert(i.as_value_ref(), sp.as_basic_value().into_int_value());
                    phis.push((i, sp));
                }
            }
        }
        for &bb in &blocks {
            for i in ir::instructions(bb) {
                self.instruction(i)?;
            }
        }
        for (i, sp) in phis {
            let phi: PhiValue<'ctx> = i.try_into().expect("a PHI");
            for k in 0..phi.count_incoming() {
                let (v, from) = phi.get_incoming(k).expect("in range");
                let s = self.or_zero(self.shadow(v));
                sp.add_incoming(&[(&s, from)]);
            }
        }
        Ok(())
    }

    fn instruction(&mut self, i: InstructionValue<'ctx>) -> Result<(), Error> {
        let op = i.get_opcode();
        let op_k = |k: u32| operand(i, k);
        match op {
            Op::Add
            | Op::Sub
            | Op::Mul
            | Op::UDiv
            | Op::SDiv
            | Op::URem
            | Op::SRem
            | Op::Shl
            | Op::LShr
            | Op::AShr
            | Op::And
            | Op::Or
            | Op::Xor => {
                let (Some(w), Some(a), Some(b)) = (int_width(i.get_type()), op_k(0), op_k(1)) else {
                    return Ok(());
                };
                let (sa, sb) = (self.shadow(a), self.shadow(b));
                if sa.is_none() && sb.is_none() {
                    return Ok(());
                }
                let Some(code) = binop_code(op) else { return Ok(()) };
                // The operands as words, made once before the instruction
                // (they serve the trap check there and the expression after).
                self.b.position_before(&i);
                let (va, vb) = (self.wide(a, false)?, self.wide(b, false)?);
                let (sa, sb, wc) = (self.or_zero(sa), self.or_zero(sb), self.i32c(w.into()));
                if matches!(op, Op::UDiv | Op::SDiv | Op::URem | Op::SRem) {
                    // Before it runs: whether the inputs could make it
                    // trap (a divisor of 0, or MIN / -1), as a branch.
                    let site = self.site();
                    let site = self.i32c(site.into());
                    let args = [
                        site.into(),
                        self.i32c(code.into()).into(),
                        sa.into(),
                        sb.into(),
                        va.into(),
                        vb.into(),
                        wc.into(),
                    ];
                    self.call(self.abi.check_div, &args)?;
                }
                self.after(i);
                let args = [self.i32c(code.into()).into(), sa.into(), sb.into(), va.into(), vb.into(), wc.into()];
                let s = self.call(self.abi.binop, &args)?.expect("i32");
                self.map.insert(i.as_value_ref(), s);
            }
            Op::ICmp => {
                let (Some(a), Some(b), Some(p)) = (op_k(0), op_k(1), i.get_icmp_predicate()) else {
                    return Ok(());
                };
                let Some(w) = shadow_width(a.get_type().as_any_type_enum()) else { return Ok(()) };
                let (sa, sb) = (self.shadow(a), self.shadow(b));
                if sa.is_none() && sb.is_none() {
                    return Ok(());
                }
                self.after(i);
                let mut args = vec![
                    self.i32c(cmp_code(p).into()).into(),
                    self.or_zero(sa).into(),
                    self.or_zero(sb).into(),
                    self.wide(a, false)?.into(),
                    self.wide(b, false)?.into(),
                ];
                let s = if a.is_pointer_value() {
                    self.call(self.abi.cmp_ptr, &args)?
                } else {
                    args.push(self.i32c(w.into()).into());
                    self.call(self.abi.cmp, &args)?
                };
                let s = s.expect("i32");
                self.map.insert(i.as_value_ref(), s);
            }
            Op::ZExt | Op::SExt | Op::Trunc => {
                let (Some(to), Some(a)) = (int_width(i.get_type()), op_k(0)) else { return Ok(()) };
                let Some(sa) = self.shadow(a) else { return Ok(()) };
                self.after(i);
                let args = [sa.into(), self.i32c(to.into()).into(), self.i32c(u64::from(op == Op::SExt)).into()];
                let s = self.call(self.abi.cast, &args)?.expect("i32");
                self.map.insert(i.as_value_ref(), s);
            }
            Op::GetElementPtr => self.gep(i)?,
            Op::PtrToInt | Op::IntToPtr => self.pointer_cast(i)?,
            Op::Freeze => {
                if let Some(s) = op_k(0).and_then(|a| self.shadow(a)) {
                    self.map.insert(i.as_value_ref(), s);
                }
            }
            // The select that picks a select's counter stays concrete.
            Op::Select if crate::ir::has_metadata(i, crate::edges::PROBE_KIND) => {}
            Op::Select => self.select(i)?,
            Op::ExtractValue => {
                let Some(fields) = op_k(0).and_then(|a| self.fields.get(&a.as_value_ref())) else { return Ok(()) };
                // SAFETY: an extractvalue has at least one index.
                let k = unsafe {
                    let n = inkwell::llvm_sys::core::LLVMGetNumIndices(i.as_value_ref());
                    (n == 1).then(|| *inkwell::llvm_sys::core::LLVMGetIndices(i.as_value_ref()))
                };
                if let Some(s) = k.and_then(|k| fields.get(k as usize).copied().flatten()) {
                    self.map.insert(i.as_value_ref(), s);
                }
            }
            Op::Load if is_asan_shadow_load(i) => {}
            Op::Load => self.load(i)?,
            Op::Store => self.store(i)?,
            Op::Alloca => self.alloca(i)?,
            Op::Call => self.call_site(i)?,
            Op::Invoke => self.invoke_site(i)?,
            Op::Br => {
                let Some(c) = op_k(0).filter(|_| i.get_num_operands() == 3) else { return Ok(()) };
                let Some(sc) = self.shadow(c) else { return Ok(()) };
                self.b.position_before(&i);
                // Successor 0 is taken when the condition holds.
                let slots = self.slots(i);
                let (if_true, if_false) = (slots.first().copied(), slots.get(1).copied());
                self.branch_probe(sc, c.into_int_value(), if_true, if_false)?;
            }
            Op::Switch => self.switch(i)?,
            Op::Return => {
                let Some(v) = op_k(0) else { return Ok(()) };
                if shadow_width(v.get_type().as_any_type_enum()).is_some() {
                    self.b.position_before(&i);
                    self.call(self.abi.set_ret, &[self.or_zero(self.shadow(v)).into()])?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn select(&mut self, i: InstructionValue<'ctx>) -> Result<(), Error> {
        let ops: Vec<_> = (0..3).filter_map(|k| operand(i, k)).collect();
        let [c, t, f] = ops.as_slice() else { return Ok(()) };
        if !c.is_int_value() {
            return Ok(());
        }
        let sc = self.shadow(*c);
        self.select_branch(i, sc, c.into_int_value())?;
        let Some(w) = shadow_width(i.get_type()) else { return Ok(()) };
        let (st, sf) = (self.shadow(*t), self.shadow(*f));
        if sc.is_none() && st.is_none() && sf.is_none() {
            return Ok(());
        }
        self.after(i);
        let c32 = self.b.build_int_z_extend(c.into_int_value(), self.ctx.i32_type(), "")?;
        let args = [
            self.or_zero(sc).into(),
            c32.into(),
            self.or_zero(st).into(),
            self.or_zero(sf).into(),
            self.wide(*t, false)?.into(),
            self.wide(*f, false)?.into(),
            self.i32c(w.into()).into(),
        ];
        let s = self.call(self.abi.select, &args)?.expect("i32");
        self.map.insert(i.as_value_ref(), s);
        Ok(())
    }

    /// A counted select (see `edges`) is a branch the optimiser folded:
    /// on a symbolic condition (shadow `sc`), a path entry too, so that
    /// the explorer asks for the outcome not taken.
    fn select_branch(
        &mut self,
        i: InstructionValue<'ctx>,
        sc: Option<IntValue<'ctx>>,
        c: IntValue<'ctx>,
    ) -> Result<(), Error> {
        let slots = self.slots(i);
        let (Some(sc), &[if_true, if_false]) = (sc, slots.as_slice()) else { return Ok(()) };
        self.after(i);
        self.branch_probe(sc, c, Some(if_true), Some(if_false))
    }

    /// At the builder's position: a branch of a new site on condition `c`
    /// (shadow `sc`), with the counters of its two outcomes.
    fn branch_probe(
        &mut self,
        sc: IntValue<'ctx>,
        c: IntValue<'ctx>,
        if_true: Option<u32>,
        if_false: Option<u32>,
    ) -> Result<(), Error> {
        let site = self.site();
        let taken = self.b.build_int_z_extend(c, self.ctx.i32_type(), "")?;
        let args = [
            self.i32c(site.into()).into(),
            sc.into(),
            taken.into(),
            self.area().into(),
            self.i32c(if_false.unwrap_or(NO_SLOT).into()).into(),
            self.i32c(if_true.unwrap_or(NO_SLOT).into()).into(),
        ];
        self.call(self.abi.branch, &args)?;
        Ok(())
    }

    fn store_size(&self, t: BasicTypeEnum<'ctx>) -> u64 {
        self.td.get_store_size(&t)
    }

    fn load(&mut self, i: InstructionValue<'ctx>) -> Result<(), Error> {
        let Some(w) = shadow_width(i.get_type()).filter(|w| w % 8 == 0) else { return Ok(()) };
        let Some(BasicValueEnum::PointerValue(p)) = operand(i, 0) else {
            return Ok(());
        };
        self.after(i);
        let size = self.i32c(u64::from(w / 8));
        self.check_access(p, size)?;
        // A pointer read through a symbolic index is not a table read and
        // pins nothing: pointers are concretised without a constraint.
        let indexed =
            p.as_instruction().filter(|_| int_width(i.get_type()).is_some()).and_then(|g| self.symbolic_index(g));
        let s = match indexed {
            Some((idx, si, elem)) => {
                let args = [p.into(), si.into(), self.wide(idx, true)?.into(), self.i32c(elem).into(), size.into()];
                self.call(self.abi.load_indexed, &args)?
            }
            None => self.call(self.abi.load, &[p.into(), size.into()])?,
        };
        self.map.insert(i.as_value_ref(), s.expect("i32"));
        Ok(())
    }

    /// A GEP with one variable index whose shadow is symbolic: the index,
    /// its shadow and the element size.
    fn symbolic_index(&self, g: InstructionValue<'ctx>) -> Option<(BasicValueEnum<'ctx>, IntValue<'ctx>, u64)> {
        if g.get_opcode() != Op::GetElementPtr {
            return None;
        }
        let n = g.get_num_operands();
        let idx = operand(g, n - 1)?;
        let si = self.shadow(idx)?;
        // SAFETY: a GEP instruction's source element type.
        let src = unsafe { inkwell::llvm_sys::core::LLVMGetGEPSourceElementType(g.as_value_ref()) };
        // SAFETY: a type of this context.
        let src = unsafe { BasicTypeEnum::new(src) };
        let elem = match (n, src) {
            (2, t) => t,
            (3, BasicTypeEnum::ArrayType(a)) => {
                let first = operand(g, 1)?.into_int_value();
                if first.get_zero_extended_constant() != Some(0) {
                    return None;
                }
                a.get_element_type()
            }
            _ => return None,
        };
        Some((idx, si, self.td.get_abi_size(&elem)))
    }

    fn store(&mut self, i: InstructionValue<'ctx>) -> Result<(), Error> {
        let (Some(v), Some(BasicValueEnum::PointerValue(p))) = (operand(i, 0), operand(i, 1)) else {
            return Ok(());
        };
        let size = self.store_size(v.get_type());
        let symbolic = shadow_width(v.get_type().as_any_type_enum()).is_some_and(|w| w % 8 == 0);
        let s = if symbolic { self.or_zero(self.shadow(v)) } else { self.zero() };
        self.after(i);
        self.check_access(p, self.i32c(size))?;
        self.call(self.abi.store, &[p.into(), s.into(), self.i32c(size).into()])?;
        Ok(())
    }

    /// Before an access through `p` whose address is symbolic: whether
    /// the inputs could move it far outside its object, as a branch.
    fn check_access(&mut self, p: PointerValue<'ctx>, size: IntValue<'ctx>) -> Result<(), Error> {
        let Some(sp) = self.shadow(p.into()) else { return Ok(()) };
        let site = self.site();
        let args = [self.i32c(site.into()).into(), self.wide(p.into(), false)?.into(), sp.into(), size.into()];
        self.call(self.abi.check_access, &args)?;
        Ok(())
    }

    fn alloca(&mut self, i: InstructionValue<'ctx>) -> Result<(), Error> {
        let Ok(t) = i.get_allocated_type() else { return Ok(()) };
        let count = operand(i, 0).and_then(|v| v.into_int_value().get_zero_extended_constant());
        let Some(count) = count else { return Ok(()) };
        let size = self.td.get_abi_size(&t) * count;
        let p: BasicValueEnum<'ctx> = i.as_any_value_enum().try_into().map_err(|_| Error::Verify("alloca".into()))?;
        self.after(i);
        self.call(self.abi.clear, &[p, self.ctx.i64_type().const_int(size, false).into()])?;
        Ok(())
    }

    fn switch(&mut self, i: InstructionValue<'ctx>) -> Result<(), Error> {
        let Some(c) = operand(i, 0) else { return Ok(()) };
        let Some(sc) = self.shadow(c) else { return Ok(()) };
        let i64t = self.ctx.i64_type();
        let cases: Vec<IntValue<'ctx>> = (1..i.get_num_operands() / 2)
            .filter_map(|k| operand(i, 2 * k))
            .filter_map(|v| v.into_int_value().get_zero_extended_constant())
            .map(|v| i64t.const_int(v, false))
            .collect();
        let table = self.module.add_global(i64t.array_type(cases.len() as u32), None, "__carve_sym_cases");
        table.set_linkage(inkwell::module::Linkage::Private);
        table.set_constant(true);
        table.set_initializer(&i64t.const_array(&cases));
        // The successors' counters: each case's, then the default's
        // (successor 0).
        let slots = self.slots(i);
        let i32t = self.ctx.i32_type();
        let per_case: Vec<IntValue<'ctx>> = (1..=cases.len())
            .chain([0])
            .map(|k| i32t.const_int(slots.get(k).copied().unwrap_or(NO_SLOT).into(), false))
            .collect();
        let slot_table = self.module.add_global(i32t.array_type(per_case.len() as u32), None, "__carve_sym_slots");
        slot_table.set_linkage(inkwell::module::Linkage::Private);
        slot_table.set_constant(true);
        slot_table.set_initializer(&i32t.const_array(&per_case));
        self.b.position_before(&i);
        let site = self.site();
        let args = [
            self.i32c(site.into()).into(),
            sc.into(),
            self.wide(c, false)?.into(),
            table.as_pointer_value().into(),
            self.i32c(cases.len() as u64).into(),
            self.area().into(),
            slot_table.as_pointer_value().into(),
        ];
        self.call(self.abi.switch, &args)?;
        Ok(())
    }
}

/// The trace operator of an LLVM integer operation; `None` for any
/// other instruction (never a wrong operator).
/// Whether `i` loads AddressSanitizer's shadow memory (`(addr >> 3) +
/// 0x7fff8000` on x86-64): a check ASan added, whose bytes are ASan's,
/// not the program's. Following it would take every symbolic pointer for
/// an index into that memory.
fn is_asan_shadow_load<'ctx>(i: InstructionValue<'ctx>) -> bool {
    const SHADOW_OFFSET: u64 = 0x7fff_8000;
    fn int_op<'c>(v: Option<BasicValueEnum<'c>>) -> Option<inkwell::values::IntValue<'c>> {
        v.filter(|v| v.is_int_value()).map(|v| v.into_int_value())
    }
    let Some(BasicValueEnum::PointerValue(p)) = operand(i, 0) else { return false };
    let Some(cast) = p.as_instruction().filter(|c| c.get_opcode() == Op::IntToPtr) else { return false };
    let Some(sum) = int_op(operand(cast, 0)).and_then(|v| v.as_instruction()) else { return false };
    if !matches!(sum.get_opcode(), Op::Add | Op::Or) {
        return false;
    }
    let (a, b) = (int_op(operand(sum, 0)), int_op(operand(sum, 1)));
    let offset = b.and_then(|b| b.get_zero_extended_constant()) == Some(SHADOW_OFFSET);
    let shifted = a.and_then(|a| a.as_instruction()).is_some_and(|s| {
        s.get_opcode() == Op::LShr && int_op(operand(s, 1)).and_then(|k| k.get_zero_extended_constant()) == Some(3)
    });
    offset && shifted
}

fn binop_code(op: Op) -> Option<u8> {
    use model::op::Op as T;
    let t = match op {
        Op::Add => T::Add,
        Op::Sub => T::Sub,
        Op::Mul => T::Mul,
        Op::UDiv => T::UDiv,
        Op::SDiv => T::SDiv,
        Op::URem => T::URem,
        Op::SRem => T::SRem,
        Op::Shl => T::Shl,
        Op::LShr => T::LShr,
        Op::AShr => T::AShr,
        Op::And => T::And,
        Op::Or => T::Or,
        Op::Xor => T::Xor,
        _ => return None,
    };
    Some(t.code())
}

pub(super) fn cmp_code(p: IntPredicate) -> u8 {
    use model::op::Op as T;
    let t = match p {
        IntPredicate::EQ => T::Eq,
        IntPredicate::NE => T::Ne,
        IntPredicate::ULT => T::Ult,
        IntPredicate::ULE => T::Ule,
        IntPredicate::UGT => T::Ugt,
        IntPredicate::UGE => T::Uge,
        IntPredicate::SLT => T::Slt,
        IntPredicate::SLE => T::Sle,
        IntPredicate::SGT => T::Sgt,
        IntPredicate::SGE => T::Sge,
    };
    t.code()
}

/// Blocks reachable from `entry`, in reverse post-order.
fn rpo(entry: BasicBlock<'_>) -> Vec<BasicBlock<'_>> {
    let mut seen = HashSet::new();
    let mut post = Vec::new();
    let mut stack = vec![(entry, false)];
    while let Some((bb, done)) = stack.pop() {
        if done {
            post.push(bb);
            continue;
        }
        if !seen.insert(bb) {
            continue;
        }
        stack.push((bb, true));
        if let Some(t) = bb.get_terminator() {
            for k in (0..t.get_num_operands()).rev() {
                if let Some(inkwell::values::Operand::Block(s)) = t.get_operand(k) {
                    if !seen.contains(&s) {
                        stack.push((s, false));
                    }
                }
            }
        }
    }
    post.reverse();
    post
}
