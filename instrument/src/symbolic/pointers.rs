//! Pointer arithmetic in the shadow: a pointer computed from a symbolic
//! offset (`prog.cur + strlen(script)`) carries its address as a 64-bit
//! expression, so comparing it with another pointer (`prog.cur <
//! prog.end`) is a branch condition on the input. The address itself stays
//! concrete: loads and stores go where the run went.

use super::shadow::{operand, shadow_width, Shadower};
use crate::Error;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{AnyValue, AsValueRef, BasicValueEnum, InstructionValue};

impl<'ctx> Shadower<'_, 'ctx> {
    /// A GEP whose base or some index has a shadow: the base's expression
    /// plus each symbolic index times its stride (one runtime call per
    /// symbolic index), plus the concrete rest.
    pub(super) fn gep(&mut self, g: InstructionValue<'ctx>) -> Result<(), Error> {
        if !g.get_type().is_pointer_type() {
            return Ok(());
        }
        let Some(base) = operand(g, 0) else { return Ok(()) };
        let strides = strides(self, g);
        let indexed: Vec<(BasicValueEnum<'ctx>, _, u64)> = strides
            .iter()
            .enumerate()
            .filter_map(|(k, stride)| {
                let idx = operand(g, k as u32 + 1)?;
                Some((idx, self.shadow(idx)?, (*stride)?))
            })
            .collect();
        let sb = self.shadow(base);
        if sb.is_none() && indexed.is_empty() {
            return Ok(());
        }
        self.after(g);
        let r: BasicValueEnum<'ctx> = g.as_any_value_enum().try_into().map_err(|_| Error::Verify("gep".into()))?;
        let rv = self.wide(r, false)?;
        let (mut acc, mut from) = (self.or_zero(sb), self.wide(base, false)?);
        let i64t = self.ctx.i64_type();
        if indexed.is_empty() {
            let zero = i64t.const_zero();
            let args = [acc.into(), from.into(), self.zero().into(), zero.into(), zero.into(), rv.into()];
            acc = self.call(self.abi.gep, &args)?.expect("i32");
        }
        for (idx, si, stride) in indexed {
            let vi = self.wide(idx, true)?;
            let args = [acc.into(), from.into(), si.into(), vi.into(), i64t.const_int(stride, false).into(), rv.into()];
            acc = self.call(self.abi.gep, &args)?.expect("i32");
            from = rv;
        }
        self.map.insert(g.as_value_ref(), acc);
        Ok(())
    }

    /// `ptrtoint` / `inttoptr`: the same address, resized.
    pub(super) fn pointer_cast(&mut self, i: InstructionValue<'ctx>) -> Result<(), Error> {
        let (Some(to), Some(a)) = (shadow_width(i.get_type()), operand(i, 0)) else { return Ok(()) };
        let Some(sa) = self.shadow(a) else { return Ok(()) };
        self.after(i);
        let s = self.call(self.abi.cast, &[sa.into(), self.i32c(to.into()).into(), self.zero().into()])?.expect("i32");
        self.map.insert(i.as_value_ref(), s);
        Ok(())
    }
}

/// The stride in bytes of each of `g`'s indices; `None` for a struct
/// field (whose index is a constant).
fn strides<'ctx>(s: &Shadower<'_, 'ctx>, g: InstructionValue<'ctx>) -> Vec<Option<u64>> {
    // SAFETY: a GEP instruction's source element type.
    let src = unsafe { inkwell::llvm_sys::core::LLVMGetGEPSourceElementType(g.as_value_ref()) };
    // SAFETY: a type of this context.
    let mut t = unsafe { BasicTypeEnum::new(src) };
    let n = g.get_num_operands().saturating_sub(1) as usize;
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        if k == 0 {
            out.push(Some(s.td.get_abi_size(&t)));
            continue;
        }
        match t {
            BasicTypeEnum::ArrayType(a) => {
                t = a.get_element_type();
                out.push(Some(s.td.get_abi_size(&t)));
            }
            BasicTypeEnum::VectorType(v) => {
                t = v.get_element_type();
                out.push(Some(s.td.get_abi_size(&t)));
            }
            BasicTypeEnum::StructType(st) => {
                let field = operand(g, k as u32 + 1).and_then(|v| v.into_int_value().get_zero_extended_constant());
                match field.and_then(|f| st.get_field_type_at_index(f as u32)) {
                    Some(f) => t = f,
                    None => break,
                }
                out.push(None);
            }
            _ => break,
        }
    }
    out
}
