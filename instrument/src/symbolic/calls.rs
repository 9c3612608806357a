//! Calls in a symbolic clone: shadows of arguments and results passed
//! between clones; models for the libc functions that matter; memory
//! intrinsics; `getopt` and its long forms (`runtime/src/symgetopt.rs`);
//! the acceptance of a regex by libc's compilers (`runtime/src/symregex.rs`);
//! the parsers and string searches of [`libc`] (`sscanf`, `strtol`,
//! `strchr`, `strtok`...);
//! reads from files ([`super::io`]);
//! and, for any other call, symbolic integer arguments
//! pinned to their values (the callee ran concretely).

mod libc;

use super::shadow::{int_width, operand, shadow_width, Shadower};
use crate::Error;
use inkwell::values::{AnyValue, AsValueRef, BasicValueEnum, FunctionValue, InstructionValue};
use model::abi::{Id, SINKS};
use model::op::Op;

impl<'ctx> Shadower<'_, 'ctx> {
    pub(super) fn call_site(&mut self, i: InstructionValue<'ctx>) -> Result<(), Error> {
        let n = i.get_num_operands();
        let args: Vec<BasicValueEnum<'ctx>> = (0..n.saturating_sub(1)).filter_map(|k| operand(i, k)).collect();
        // Some argument is not a value (metadata, a label): only
        // intrinsics take those; anything else is left concrete.
        let complete = args.len() == n.saturating_sub(1) as usize;
        let Some(f) = self.direct_callee(i) else {
            return if complete { self.indirect_call(i, &args) } else { self.pin_all(i, &args) };
        };
        let name = f.get_name().to_string_lossy().into_owned();
        if name.starts_with("__carve_") || name.starts_with("__sym_") || SINKS.contains(&name.as_str()) {
            return Ok(());
        }
        if name.starts_with("llvm.") {
            return self.intrinsic(i, &name, &args);
        }
        if !complete {
            return self.pin_all(i, &args);
        }
        if f.count_basic_blocks() > 0 && name.ends_with(super::SUFFIX) {
            return self.clone_call(i, &args);
        }
        self.model(i, &name, &args)
    }

    /// An invoke (C++ code with cleanups): a clone it calls gets its
    /// arguments' shadows; its result stays concrete, as does any other
    /// callee's work (the models are for calls).
    pub(super) fn invoke_site(&mut self, i: InstructionValue<'ctx>) -> Result<(), Error> {
        let n = i.get_num_operands();
        // An invoke's operands: the arguments, the two destinations, the callee.
        let args: Vec<BasicValueEnum<'ctx>> = (0..n.saturating_sub(3)).filter_map(|k| operand(i, k)).collect();
        let clone = self
            .direct_callee(i)
            .filter(|f| f.count_basic_blocks() > 0 && f.get_name().to_string_lossy().ends_with(super::SUFFIX));
        if clone.is_none() || args.len() != n.saturating_sub(3) as usize {
            return Ok(());
        }
        self.pass_params(i, &args)
    }

    /// The function a call or invoke names (its last operand), if it
    /// names one directly.
    fn direct_callee(&self, i: InstructionValue<'ctx>) -> Option<FunctionValue<'ctx>> {
        operand(i, i.get_num_operands().saturating_sub(1))
            .and_then(|v| v.is_pointer_value().then(|| v.into_pointer_value()))
            .and_then(|p| {
                let name = p.get_name().to_string_lossy().into_owned();
                self.module.get_function(&name).filter(|f| f.as_value_ref() == p.as_value_ref())
            })
    }

    /// Before `i`, the shadows of its arguments, for the clone it calls.
    fn pass_params(&mut self, i: InstructionValue<'ctx>, args: &[BasicValueEnum<'ctx>]) -> Result<(), Error> {
        self.b.position_before(&i);
        for (k, a) in args.iter().enumerate().take(super::MAX_PARAMS) {
            if let Some(s) = self.shadow(*a) {
                self.call(self.abi.set_param, &[self.i32c(k as u64).into(), s.into()])?;
            }
        }
        Ok(())
    }

    /// A call between clones: argument shadows before, the result's after.
    fn clone_call(&mut self, i: InstructionValue<'ctx>, args: &[BasicValueEnum<'ctx>]) -> Result<(), Error> {
        self.pass_params(i, args)?;
        if shadow_width(i.get_type()).is_some() {
            self.after(i);
            let s = self.call(self.abi.get_ret, &[])?.expect("i32");
            self.map.insert(i.as_value_ref(), s);
        }
        Ok(())
    }

    fn intrinsic(&mut self, i: InstructionValue<'ctx>, name: &str, args: &[BasicValueEnum<'ctx>]) -> Result<(), Error> {
        let base = name.split('.').take(2).collect::<Vec<_>>().join(".");
        match base.as_str() {
            "llvm.memcpy" | "llvm.memmove" if args.len() >= 3 => {
                self.after(i);
                let n = self.wide(args[2], false)?;
                self.call(self.abi.memcpy, &[args[0], args[1], n.into()])?;
            }
            "llvm.memset" if args.len() >= 3 => {
                self.after(i);
                let n = self.wide(args[2], false)?;
                let s = self.or_zero(self.shadow(args[1]));
                self.call(self.abi.memset, &[args[0], s.into(), n.into()])?;
            }
            "llvm.sadd" | "llvm.uadd" | "llvm.ssub" | "llvm.usub" | "llvm.smul" | "llvm.umul"
                if name.contains(".with.overflow.") && args.len() == 2 =>
            {
                // `{result, overflowed}`: the operation, and its flag, for
                // the `extractvalue`s (UBSan's checks branch on the flag).
                let Some(w) = int_width(inkwell::types::AnyType::as_any_type_enum(&args[0].get_type())) else {
                    return Ok(());
                };
                let (sa, sb) = (self.shadow(args[0]), self.shadow(args[1]));
                if sa.is_none() && sb.is_none() {
                    return Ok(());
                }
                let (op, kind) = match base.as_str() {
                    "llvm.uadd" => (Op::Add, 0),
                    "llvm.sadd" => (Op::Add, 1),
                    "llvm.usub" => (Op::Sub, 2),
                    "llvm.ssub" => (Op::Sub, 3),
                    "llvm.umul" => (Op::Mul, 4),
                    _ => (Op::Mul, 5),
                };
                self.after(i);
                let (va, vb) = (self.wide(args[0], false)?, self.wide(args[1], false)?);
                let (sa, sb, wc) = (self.or_zero(sa), self.or_zero(sb), self.i32c(w.into()));
                let r = [self.i32c(op.code().into()).into(), sa.into(), sb.into(), va.into(), vb.into(), wc.into()];
                let r = self.call(self.abi.binop, &r)?.expect("i32");
                let f = [self.i32c(kind).into(), sa.into(), sb.into(), va.into(), vb.into(), wc.into()];
                let f = self.call(self.abi.overflow, &f)?.expect("i32");
                self.fields.insert(i.as_value_ref(), [Some(r), Some(f)]);
            }
            "llvm.umin" | "llvm.umax" | "llvm.smin" | "llvm.smax" if args.len() == 2 => {
                let Some(w) = int_width(i.get_type()) else { return Ok(()) };
                let (sa, sb) = (self.shadow(args[0]), self.shadow(args[1]));
                if sa.is_none() && sb.is_none() {
                    return Ok(());
                }
                let op = match base.as_str() {
                    "llvm.umin" => Op::Ult,
                    "llvm.umax" => Op::Ugt,
                    "llvm.smin" => Op::Slt,
                    _ => Op::Sgt,
                };
                self.after(i);
                let (va, vb) = (self.wide(args[0], false)?, self.wide(args[1], false)?);
                let wc = self.i32c(w.into());
                let (sa, sb) = (self.or_zero(sa), self.or_zero(sb));
                let c = self
                    .call(
                        self.abi.cmp,
                        &[self.i32c(op.code().into()).into(), sa.into(), sb.into(), va.into(), vb.into(), wc.into()],
                    )?
                    .expect("i32");
                // The concrete choice: the result is `a` exactly when it equals `a`.
                let r: BasicValueEnum<'ctx> =
                    i.as_any_value_enum().try_into().map_err(|_| Error::Verify("min/max".into()))?;
                let cv = self.b.build_int_compare(
                    inkwell::IntPredicate::EQ,
                    r.into_int_value(),
                    args[0].into_int_value(),
                    "",
                )?;
                let c32 = self.b.build_int_z_extend(cv, self.ctx.i32_type(), "")?;
                let s = self
                    .call(
                        self.abi.select,
                        &[c.into(), c32.into(), sa.into(), sb.into(), va.into(), vb.into(), wc.into()],
                    )?
                    .expect("i32");
                self.map.insert(i.as_value_ref(), s);
            }
            "llvm.abs" if !args.is_empty() => {
                // |x| as x < 0 ? 0 - x : x.
                let (Some(w), Some(sx)) = (int_width(i.get_type()), self.shadow(args[0])) else { return Ok(()) };
                self.after(i);
                let x = args[0].into_int_value();
                let vx = self.wide(args[0], false)?;
                let neg = self.b.build_int_neg(x, "")?;
                let vneg = self.wide(neg.into(), false)?;
                let (wc, zero) = (self.i32c(w.into()), self.zero());
                let k0 = self.ctx.i64_type().const_zero();
                let sub =
                    [self.i32c(Op::Sub.code().into()).into(), zero.into(), sx.into(), k0.into(), vx.into(), wc.into()];
                let sneg = self.call(self.abi.binop, &sub)?.expect("i32");
                let lt =
                    [self.i32c(Op::Slt.code().into()).into(), sx.into(), zero.into(), vx.into(), k0.into(), wc.into()];
                let c = self.call(self.abi.cmp, &lt)?.expect("i32");
                let below = self.b.build_int_compare(inkwell::IntPredicate::SLT, x, x.get_type().const_zero(), "")?;
                let c32 = self.b.build_int_z_extend(below, self.ctx.i32_type(), "")?;
                let s = self
                    .call(
                        self.abi.select,
                        &[c.into(), c32.into(), sneg.into(), sx.into(), vneg.into(), vx.into(), wc.into()],
                    )?
                    .expect("i32");
                self.map.insert(i.as_value_ref(), s);
            }
            "llvm.lifetime" | "llvm.dbg" | "llvm.assume" | "llvm.experimental" | "llvm.stacksave"
            | "llvm.stackrestore" => {}
            _ => self.pin_all(i, args)?,
        }
        Ok(())
    }

    /// libc functions with a model (which one: `model::abi`), when the
    /// call is as libc declares them; any other call goes to
    /// [`Self::extern_call`].
    fn model(&mut self, i: InstructionValue<'ctx>, name: &str, args: &[BasicValueEnum<'ctx>]) -> Result<(), Error> {
        let Some((id, kind)) = model::abi::sym_model(name) else { return self.extern_call(i, name, args) };
        if self.libc_model(i, id, kind, name, args)? {
            return Ok(());
        }
        let i64t = self.ctx.i64_type();
        let shadowed = args.iter().any(|a| self.shadow(*a).is_some());
        let result = match id {
            Id::ModelCmp if args.len() >= 2 => {
                self.after(i);
                let n = if args.len() >= 3 { self.wide(args[2], false)? } else { i64t.const_all_ones() };
                let strings = self.i32c(u64::from(!name.ends_with("cmp") || name.starts_with("str")));
                self.call(self.abi[Id::ModelCmp], &[args[0], args[1], n.into(), strings.into()])?
            }
            Id::ModelStrlen if args.len() == 1 => {
                self.after(i);
                let r: BasicValueEnum<'ctx> =
                    i.as_any_value_enum().try_into().map_err(|_| Error::Verify("strlen".into()))?;
                let r = self.wide(r, false)?;
                self.call(self.abi[Id::ModelStrlen], &[args[0], r.into()])?
            }
            Id::ModelStrcpy if args.len() == 2 => {
                self.after(i);
                self.call(self.abi[Id::ModelStrcpy], &[args[0], args[1]])?
            }
            Id::ModelSprintf if args.len() >= 2 => {
                // (dst, [n,] [flag, size,] fmt, arg...): where the format is.
                let sized = name.contains("snprintf");
                let at = usize::from(sized) + if name.ends_with("_chk") { 3 } else { 1 };
                let (Some(&fmt), true) = (args.get(at), args[0].is_pointer_value() && args[at].is_pointer_value())
                else {
                    return self.pin_all(i, args);
                };
                self.pin_all(i, args)?;
                self.after(i);
                let null = self.ctx.ptr_type(inkwell::AddressSpace::default()).const_null();
                let arg = args.get(at + 1).copied().filter(|a| a.is_pointer_value()).unwrap_or(null.into());
                let n = if sized { self.wide(args[1], false)? } else { i64t.const_all_ones() };
                let r: BasicValueEnum<'ctx> =
                    i.as_any_value_enum().try_into().map_err(|_| Error::Verify(name.into()))?;
                let r = self.wide(r, true)?;
                self.call(self.abi[Id::ModelSprintf], &[args[0], n.into(), fmt, arg, r.into()])?;
                None
            }
            // ASan's forms of them, in a program built with it.
            Id::Memcpy if args.len() == 3 => {
                self.after(i);
                let n = self.wide(args[2], false)?;
                self.call(self.abi.memcpy, &[args[0], args[1], n.into()])?
            }
            Id::Memset if args.len() == 3 => {
                self.after(i);
                let n = self.wide(args[2], false)?;
                let s = self.or_zero(self.shadow(args[1]));
                self.call(self.abi.memset, &[args[0], s.into(), n.into()])?
            }
            Id::ModelGetopt
                if args.len() >= 3
                    && args[0].is_int_value()
                    && args[0].into_int_value().get_type().get_bit_width() == 32
                    && int_width(i.get_type()) == Some(32) =>
            {
                self.b.position_before(&i);
                self.call(self.abi[Id::ModelGetoptPre], &[args[0], args[1]])?;
                self.after(i);
                let r: BasicValueEnum<'ctx> =
                    i.as_any_value_enum().try_into().map_err(|_| Error::Verify("getopt".into()))?;
                let r = self.wide(r, true)?;
                let longopts = match args.get(3) {
                    Some(&l) => l,
                    None => self.ctx.ptr_type(inkwell::AddressSpace::default()).const_null().into(),
                };
                self.call(self.abi[Id::ModelGetopt], &[args[2], longopts, r.into()])?
            }
            Id::ModelRegex if args.len() == 3 && int_width(i.get_type()).is_none_or(|w| w == 32) => {
                // The length (or flags) the call used; the pattern's bytes
                // stay symbolic, their acceptance is the model's path entry.
                self.pin_all(i, args)?;
                self.after(i);
                let r: BasicValueEnum<'ctx> =
                    i.as_any_value_enum().try_into().map_err(|_| Error::Verify(name.into()))?;
                let r = self.wide(r, false)?;
                let ok = self.b.build_int_compare(inkwell::IntPredicate::EQ, r, i64t.const_zero(), "")?;
                let ok = self.b.build_int_z_extend(ok, self.ctx.i32_type(), "")?;
                let (pattern, len, syntax) = if name == "regcomp" {
                    (args[1], i64t.const_all_ones(), self.wide(args[2], false)?)
                } else {
                    (args[0], self.wide(args[1], false)?, i64t.const_all_ones())
                };
                let site = self.site();
                let site = self.i32c(site.into());
                self.call(self.abi[Id::ModelRegex], &[site.into(), pattern, len.into(), syntax.into(), ok.into()])?
            }
            Id::ModelChar if shadowed && args.len() == 1 => {
                let s = self.or_zero(self.shadow(args[0]));
                self.after(i);
                self.call(self.abi[Id::ModelChar], &[self.i32c(kind.into()).into(), s.into()])?
            }
            _ => match self.read_model(i, id, name, args)? {
                Some(s) => s,
                None => return self.extern_call(i, name, args),
            },
        };
        if let (Some(s), Some(_)) = (result, int_width(i.get_type())) {
            self.map.insert(i.as_value_ref(), s);
        }
        Ok(())
    }

    /// A call to a function no model knows, defined in another module:
    /// its clone when that module has one (a weak reference, null when the
    /// function comes from a library or a module built without clones),
    /// else the function itself with symbolic arguments pinned.
    fn extern_call(
        &mut self,
        i: InstructionValue<'ctx>,
        name: &str,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<(), Error> {
        use inkwell::module::Linkage;
        let Some(f) = self.module.get_function(name) else { return self.pin_all(i, args) };
        if matches!(f.get_linkage(), Linkage::Internal | Linkage::Private) {
            return self.pin_all(i, args);
        }
        let sym_name = format!("{name}{}", super::SUFFIX);
        let sym = self.module.get_function(&sym_name).unwrap_or_else(|| {
            let d = self.module.add_function(&sym_name, f.get_type(), Some(Linkage::ExternalWeak));
            d.as_global_value().set_visibility(inkwell::GlobalVisibility::Hidden);
            d
        });
        self.b.position_before(&i);
        // The clone the static link bound, else the one the function is
        // bound to in the process (an instrumented shared library's).
        let linked = sym.as_global_value().as_pointer_value();
        let named = crate::preserve::named_copy(self.ctx, self.module, &self.b, name, 1)?;
        let has = self.b.build_is_not_null(linked, "")?;
        let sp = self.b.build_select(has, linked, named, "")?.into_pointer_value();
        let fp = f.as_global_value().as_pointer_value();
        self.through_clone(i, args, name, sp, fp, f.count_params() as usize)
    }

    /// A call through a pointer: the symbolic clone of the function it
    /// points to when it has one (`__sym_clone_of`, from the runtime's
    /// table), else the function itself with symbolic arguments pinned.
    fn indirect_call(&mut self, i: InstructionValue<'ctx>, args: &[BasicValueEnum<'ctx>]) -> Result<(), Error> {
        let n = i.get_num_operands();
        let Some(fp) = operand(i, n - 1).filter(|v| v.is_pointer_value()).map(|v| v.into_pointer_value()) else {
            return self.pin_all(i, args);
        };
        self.b.position_before(&i);
        let sp = self.b.build_call(self.abi.clone_of, &[fp.into()], "")?;
        let sp = sp.try_as_basic_value().basic().expect("a pointer").into_pointer_value();
        self.through_clone(i, args, "(indirect call)", sp, fp, args.len())
    }

    /// Calls `sp` (a clone, or null) instead of `fp` when it is not null,
    /// with the arguments' shadows (`declared` parameters); else `fp`, with
    /// the symbolic integer arguments pinned (named `name`).
    fn through_clone(
        &mut self,
        i: InstructionValue<'ctx>,
        args: &[BasicValueEnum<'ctx>],
        name: &str,
        sp: inkwell::values::PointerValue<'ctx>,
        fp: inkwell::values::PointerValue<'ctx>,
        declared: usize,
    ) -> Result<(), Error> {
        // Called even when no argument is symbolic: its loads may be.
        let shadowed: Vec<_> = args.iter().take(super::MAX_PARAMS).map(|&a| self.shadow(a)).collect();
        self.b.position_before(&i);
        let has = self.b.build_is_not_null(sp, "")?;
        let callee = self.b.build_select(has, sp, fp, "")?;
        let n = i.get_num_operands();
        // SAFETY: the last operand of a call is its callee; a pointer
        // replaces a pointer.
        unsafe { inkwell::llvm_sys::core::LLVMSetOperand(i.as_value_ref(), n - 1, callee.as_value_ref()) };
        let zero = self.zero();
        // The clone reads its declared parameters only: the variadic rest
        // is pinned either way (a shadow left in the table would be read
        // by the next clone called).
        for (k, (a, s)) in args.iter().zip(shadowed).enumerate() {
            let Some(s) = s else { continue };
            if k < declared {
                let to_clone = self.b.build_select(has, s, zero, "")?.into_int_value();
                self.call(self.abi.set_param, &[self.i32c(k as u64).into(), to_clone.into()])?;
            }
            // A pointer is concretised without a constraint, as where
            // it reaches memory.
            if a.is_pointer_value() {
                continue;
            }
            let pinned = if k < declared { self.b.build_select(has, zero, s, "")?.into_int_value() } else { s };
            let v = self.wide(*a, false)?;
            let why = self.pin_name(name);
            self.call(self.abi.pin, &[pinned.into(), v.into(), why.into()])?;
        }
        if shadow_width(i.get_type()).is_some() {
            self.after(i);
            let s = self.call(self.abi.get_ret, &[])?.expect("i32");
            self.map.insert(i.as_value_ref(), s);
        }
        Ok(())
    }

    /// Symbolic integer arguments of a call the shadow cannot follow are
    /// pinned to their values.
    fn pin_all(&mut self, i: InstructionValue<'ctx>, args: &[BasicValueEnum<'ctx>]) -> Result<(), Error> {
        let pinned: Vec<_> =
            args.iter().filter(|a| !a.is_pointer_value()).filter_map(|&a| Some((a, self.shadow(a)?))).collect();
        if pinned.is_empty() {
            return Ok(());
        }
        let why = self.pin_name(&callee_name(i));
        self.b.position_before(&i);
        for (a, s) in pinned {
            let v = self.wide(a, false)?;
            self.call(self.abi.pin, &[s.into(), v.into(), why.into()])?;
        }
        Ok(())
    }

    /// The constant naming what pins a value (`__sym_pin`'s last
    /// argument), one per name in the module.
    pub(super) fn pin_name(&self, name: &str) -> inkwell::values::PointerValue<'ctx> {
        let global = format!("carve.pin.{name}");
        if let Some(g) = self.module.get_global(&global) {
            return g.as_pointer_value();
        }
        let bytes = self.ctx.const_string(name.as_bytes(), true);
        let g = self.module.add_global(bytes.get_type(), None, &global);
        g.set_linkage(inkwell::module::Linkage::Private);
        g.set_constant(true);
        g.set_initializer(&bytes);
        g.as_pointer_value()
    }
}

/// The name of the function a call calls, as the source names it
/// (`(indirect call)` when it is not a function).
pub(super) fn callee_name(i: InstructionValue<'_>) -> String {
    let n = i.get_num_operands();
    let callee = operand(i, n.saturating_sub(1)).filter(|v| v.is_pointer_value()).map(|v| v.into_pointer_value());
    match callee.map(|p| p.get_name().to_string_lossy().into_owned()).filter(|s| !s.is_empty()) {
        Some(name) => name.strip_suffix(super::SUFFIX).unwrap_or(&name).to_string(),
        None => "(indirect call)".to_string(),
    }
}
