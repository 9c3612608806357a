//! Reads in a symbolic clone: after `read`, `fread`, `fgets`, `getdelim`
//! and the `getc` family (with `__uflow` and `__underflow`, which the
//! inlined `getc_unlocked` calls to refill a stream's buffer), the runtime
//! gives the bytes read from the input file their expressions and makes
//! whatever else was read concrete (`runtime/src/symfile.rs`); `ungetc`
//! of a character where it was read from keeps it symbolic.

use super::shadow::Shadower;
use crate::Error;
use inkwell::values::{AnyValue, BasicValueEnum, InstructionValue, IntValue};
use model::abi::Id;

/// How a character read went, in the runtime's numbering.
const CONSUMED: u64 = 0;
const REFILLED: u64 = 1;
const PEEKED: u64 = 2;

impl<'ctx> Shadower<'_, 'ctx> {
    /// The model `id` of a read of `name`, when it is one and the call is
    /// as libc declares it: `Some` with the result's shadow (a
    /// character's), `None` for any other.
    pub(super) fn read_model(
        &mut self,
        i: InstructionValue<'ctx>,
        id: Id,
        name: &str,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Option<Option<IntValue<'ctx>>>, Error> {
        let null =
            || -> BasicValueEnum<'ctx> { self.ctx.ptr_type(inkwell::AddressSpace::default()).const_null().into() };
        let ptr = |k: usize| args.get(k).filter(|a| a.is_pointer_value()).copied();
        let result = |i: InstructionValue<'ctx>| -> Result<BasicValueEnum<'ctx>, Error> {
            i.as_any_value_enum().try_into().map_err(|_| Error::Verify(format!("{name}: no result")))
        };
        if id == Id::ModelGetc {
            let how = match name {
                "__uflow" => REFILLED,
                "__underflow" => PEEKED,
                _ => CONSUMED,
            };
            let fp = match (name.starts_with("getchar"), args.len(), ptr(0)) {
                (true, 0, _) => null(),
                (false, 1, Some(fp)) => fp,
                _ => return Ok(None),
            };
            self.after(i);
            let r = self.wide(result(i)?, true)?;
            let s = self.call(self.abi[Id::ModelGetc], &[fp, r.into(), self.i32c(how).into()])?;
            return Ok(Some(s));
        }
        match (id, args.len()) {
            (Id::ModelRead, 3 | 4) if args[0].is_int_value() && ptr(1).is_some() => {
                self.after(i);
                let r = self.wide(result(i)?, true)?;
                self.call(self.abi[Id::ModelRead], &[args[0], args[1], r.into()])?;
            }
            (Id::ModelFread, 4) if ptr(0).is_some() && ptr(3).is_some() => {
                self.after(i);
                let (size, r) = (self.wide(args[1], false)?, self.wide(result(i)?, false)?);
                self.call(self.abi[Id::ModelFread], &[args[0], size.into(), r.into(), args[3]])?;
            }
            (Id::ModelFgets, 3) if ptr(0).is_some() && ptr(2).is_some() => {
                self.after(i);
                let r = result(i)?;
                self.call(self.abi[Id::ModelFgets], &[args[0], r, args[2]])?;
            }
            (Id::ModelGetline, n)
                if n == 3 + usize::from(name != "getline") && ptr(0).is_some() && ptr(n - 1).is_some() =>
            {
                self.after(i);
                let r = self.wide(result(i)?, true)?;
                self.call(self.abi[Id::ModelGetline], &[args[0], r.into(), args[args.len() - 1]])?;
            }
            (Id::ModelUngetc, 2) if args[0].is_int_value() && ptr(1).is_some() => {
                self.after(i);
                let sc = self.or_zero(self.shadow(args[0]));
                let (c, r) = (self.wide(args[0], true)?, self.wide(result(i)?, true)?);
                self.call(self.abi[Id::ModelUngetc], &[args[1], c.into(), sc.into(), r.into()])?;
            }
            _ => return Ok(None),
        }
        Ok(Some(None))
    }
}
