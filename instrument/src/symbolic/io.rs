//! Reads in a symbolic clone: after `read`, `fread`, `fgets`, `getdelim`
//! and the `getc` family (with `__uflow` and `__underflow`, which the
//! inlined `getc_unlocked` calls to refill a stream's buffer), the runtime
//! gives the bytes read from the input file their expressions and makes
//! whatever else was read concrete (`runtime/src/symfile.rs`); `ungetc`
//! of a character where it was read from keeps it symbolic.

use super::shadow::Shadower;
use crate::Error;
use inkwell::values::{AnyValue, BasicValueEnum, InstructionValue, IntValue};

/// How a character read went, in the runtime's numbering.
const CONSUMED: u64 = 0;
const REFILLED: u64 = 1;
const PEEKED: u64 = 2;

impl<'ctx> Shadower<'_, 'ctx> {
    /// The model of a read, when `name` is one: `Some` with the result's
    /// shadow (a character's), `None` for any other function.
    pub(super) fn read_model(
        &mut self,
        i: InstructionValue<'ctx>,
        name: &str,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Option<Option<IntValue<'ctx>>>, Error> {
        let null =
            || -> BasicValueEnum<'ctx> { self.ctx.ptr_type(inkwell::AddressSpace::default()).const_null().into() };
        let ptr = |k: usize| args.get(k).filter(|a| a.is_pointer_value()).copied();
        let result = |i: InstructionValue<'ctx>| -> Result<BasicValueEnum<'ctx>, Error> {
            i.as_any_value_enum().try_into().map_err(|_| Error::Verify(format!("{name}: no result")))
        };
        let getc = |how: u64, fp: Option<BasicValueEnum<'ctx>>| Some((how, fp));
        let char_read = match (name, args.len()) {
            ("getc" | "fgetc" | "_IO_getc" | "getc_unlocked" | "fgetc_unlocked", 1) => getc(CONSUMED, ptr(0)),
            ("__uflow", 1) => getc(REFILLED, ptr(0)),
            ("__underflow", 1) => getc(PEEKED, ptr(0)),
            ("getchar" | "getchar_unlocked", 0) => getc(CONSUMED, Some(null())),
            _ => None,
        };
        if let Some((how, fp)) = char_read {
            let Some(fp) = fp else { return Ok(None) };
            self.after(i);
            let r = self.wide(result(i)?, true)?;
            let s = self.call(self.abi.model_getc, &[fp, r.into(), self.i32c(how).into()])?;
            return Ok(Some(s));
        }
        match (name, args.len()) {
            ("read" | "__read_chk", 3 | 4) if args[0].is_int_value() && ptr(1).is_some() => {
                self.after(i);
                let r = self.wide(result(i)?, true)?;
                self.call(self.abi.model_read, &[args[0], args[1], r.into()])?;
            }
            ("fread" | "fread_unlocked", 4) if ptr(0).is_some() && ptr(3).is_some() => {
                self.after(i);
                let (size, r) = (self.wide(args[1], false)?, self.wide(result(i)?, false)?);
                self.call(self.abi.model_fread, &[args[0], size.into(), r.into(), args[3]])?;
            }
            ("fgets" | "fgets_unlocked", 3) if ptr(0).is_some() && ptr(2).is_some() => {
                self.after(i);
                let r = result(i)?;
                self.call(self.abi.model_fgets, &[args[0], r, args[2]])?;
            }
            ("getdelim" | "__getdelim", 4) | ("getline", 3) if ptr(0).is_some() && ptr(args.len() - 1).is_some() => {
                self.after(i);
                let r = self.wide(result(i)?, true)?;
                self.call(self.abi.model_getline, &[args[0], r.into(), args[args.len() - 1]])?;
            }
            ("ungetc", 2) if args[0].is_int_value() && ptr(1).is_some() => {
                self.after(i);
                let sc = self.or_zero(self.shadow(args[0]));
                let (c, r) = (self.wide(args[0], true)?, self.wide(result(i)?, true)?);
                self.call(self.abi.model_ungetc, &[args[1], c.into(), sc.into(), r.into()])?;
            }
            _ => return Ok(None),
        }
        Ok(Some(None))
    }
}
