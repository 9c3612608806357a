//! Calls to libc's parsers and string searches in a symbolic clone: the
//! real call runs, then its model in the runtime (`runtime/src/symscanf.rs`,
//! `symstrtol.rs`, `symstr.rs`, `symstrtok.rs`) gives the result's shadow,
//! the shadows of what it stored, and its decisions on symbolic bytes as
//! branches at the call's site. `strtok` and `vsscanf` get a hook before
//! the call too. The conversions between bytes and wide characters
//! (`mbrtowc`, `wcrtomb`, `wctob`...) have theirs in `runtime/src/symwide.rs`.

use super::super::shadow::{int_width, shadow_width, Shadower};
use crate::Error;
use inkwell::values::{AnyValue, AsValueRef, BasicValueEnum, InstructionValue, IntValue};
use model::abi::Id;

/// `(format's argument, takes a va_list)` of a scanf-like call: `scanf`
/// and `vscanf` have no stream, the `v` forms a `va_list` after the format.
fn scan_form(name: &str) -> (usize, bool) {
    let name = name.strip_prefix("__isoc99_").unwrap_or(name);
    let va = name.starts_with('v');
    (usize::from(name.trim_start_matches('v') != "scanf"), va)
}

/// The `strtol` family: `(base, signed)`, `base` `None` for the call's own
/// (`atoi` and kin read base 10).
fn strtol_form(name: &str) -> (Option<u64>, bool) {
    (name.starts_with("ato").then_some(10), !name.starts_with("strtou"))
}

impl<'ctx> Shadower<'_, 'ctx> {
    fn null(&self) -> BasicValueEnum<'ctx> {
        self.ctx.ptr_type(inkwell::AddressSpace::default()).const_null().into()
    }

    fn result(&self, i: InstructionValue<'ctx>) -> Result<BasicValueEnum<'ctx>, Error> {
        i.as_any_value_enum().try_into().map_err(|_| Error::Verify("libc call without a result".into()))
    }

    fn ptr_arg(&self, args: &[BasicValueEnum<'ctx>], k: usize) -> Option<BasicValueEnum<'ctx>> {
        args.get(k).filter(|a| a.is_pointer_value()).copied()
    }

    /// The call of `name` to model `id` (`kind`: `name`'s place among its
    /// functions) when it is one of libc's parsers and searches: its calls
    /// are built and the result's shadow set; false for any other.
    pub(super) fn libc_model(
        &mut self,
        i: InstructionValue<'ctx>,
        id: Id,
        kind: u32,
        name: &str,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<bool, Error> {
        let p = |k: usize| self.ptr_arg(args, k);
        let result = if matches!(id, Id::ModelSscanf | Id::ModelFscanf) {
            let (fmt, va) = scan_form(name);
            let first = fmt + 1;
            let (Some(fmt_p), true) = (p(fmt), args.len() >= first) else { return Ok(false) };
            if int_width(i.get_type()) != Some(32) || (id == Id::ModelSscanf && p(0).is_none()) {
                return Ok(false);
            }
            if va {
                let Some(ap) = p(first) else { return Ok(false) };
                self.b.position_before(&i);
                self.call(self.abi[Id::ScanfVa], &[ap])?;
            }
            self.after(i);
            let nargs = if va {
                u32::MAX as u64
            } else {
                for (k, a) in args[first..].iter().enumerate() {
                    let a = if a.is_pointer_value() { *a } else { self.null() };
                    self.call(self.abi[Id::ScanfArg], &[self.i32c(k as u64).into(), a])?;
                }
                (args.len() - first) as u64
            };
            let ret = self.wide(self.result(i)?, true)?;
            let n = self.i32c(nargs);
            if id == Id::ModelFscanf {
                self.call(self.abi[Id::ModelFscanf], &[fmt_p, ret.into(), n.into()])?;
                return Ok(true);
            }
            let site = self.site();
            let site = self.i32c(site.into());
            self.call(self.abi[Id::ModelSscanf], &[site.into(), args[0], fmt_p, ret.into(), n.into()])?
        } else if id == Id::ModelStrtol {
            let (base, signed) = strtol_form(name);
            let Some(s) = p(0) else { return Ok(false) };
            let Some(w) = int_width(i.get_type()) else { return Ok(false) };
            let endptr = match base {
                Some(_) => self.null(),
                None => match (p(1), args.get(2)) {
                    (Some(e), Some(b)) if b.is_int_value() && args.len() == 3 => e,
                    _ => return Ok(false),
                },
            };
            // A symbolic base is pinned: the model follows the call's.
            self.pin_all(i, args)?;
            self.after(i);
            let base = match base {
                Some(b) => self.ctx.i64_type().const_int(b, false),
                None => self.wide(args[2], true)?,
            };
            let site = self.site();
            let a = [
                s,
                endptr,
                base.into(),
                self.i32c(site.into()).into(),
                self.i32c(w.into()).into(),
                self.i32c(u64::from(signed)).into(),
            ];
            self.call(self.abi[Id::ModelStrtol], &a)?
        } else {
            match self.search_model(i, id, kind, name, args)? {
                Some(r) => r,
                None => return Ok(false),
            }
        };
        if let (Some(s), Some(_)) = (result, shadow_width(i.get_type())) {
            self.map.insert(i.as_value_ref(), s);
        }
        Ok(true)
    }

    /// The string searches, compares and tokenizers: `Some` with the
    /// result's shadow when `id` is one and the call is as libc declares it.
    fn search_model(
        &mut self,
        i: InstructionValue<'ctx>,
        id: Id,
        kind: u32,
        name: &str,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Option<Option<IntValue<'ctx>>>, Error> {
        let p = |k: usize| self.ptr_arg(args, k);
        let int = |k: usize| args.get(k).filter(|a| a.is_int_value()).copied();
        let i64t = self.ctx.i64_type();
        let ret_ptr = i.get_type().is_pointer_type();
        let kind = u64::from(kind);
        let r = match (id, args.len()) {
            (Id::ModelStrchr, n) if n == 2 + usize::from(name == "memchr") && ret_ptr => {
                let (Some(s), Some(c)) = (p(0), int(1)) else { return Ok(None) };
                let n = match int(2) {
                    Some(n) => {
                        if let Some(sn) = self.shadow(n) {
                            self.b.position_before(&i);
                            let v = self.wide(n, false)?;
                            let why = self.pin_name(name);
                            self.call(self.abi.pin, &[sn.into(), v.into(), why.into()])?;
                        }
                        n
                    }
                    None => i64t.const_zero().into(),
                };
                self.after(i);
                let (sp, sc) = (self.or_zero(self.shadow(s)), self.or_zero(self.shadow(c)));
                let (cv, nv, r) = (self.wide(c, true)?, self.wide(n, false)?, self.result(i)?);
                let site = self.site();
                let a = [
                    self.i32c(kind).into(),
                    s,
                    sp.into(),
                    cv.into(),
                    sc.into(),
                    nv.into(),
                    r,
                    self.i32c(site.into()).into(),
                ];
                self.call(self.abi[Id::ModelStrchr], &a)?
            }
            (Id::ModelStrspn, 2) => {
                let (Some(s), Some(set)) = (p(0), p(1)) else { return Ok(None) };
                if ret_ptr != (name == "strpbrk") {
                    return Ok(None);
                }
                self.after(i);
                let sp = self.or_zero(self.shadow(s));
                let r = self.wide(self.result(i)?, false)?;
                let site = self.site();
                let a = [self.i32c(kind).into(), s, sp.into(), set, r.into(), self.i32c(site.into()).into()];
                self.call(self.abi[Id::ModelStrspn], &a)?
            }
            (Id::ModelStrstr, 2) if ret_ptr => {
                let (Some(h), Some(n)) = (p(0), p(1)) else { return Ok(None) };
                self.after(i);
                let sh = self.or_zero(self.shadow(h));
                let (r, site) = (self.result(i)?, self.site());
                self.call(self.abi[Id::ModelStrstr], &[h, sh.into(), n, r, self.i32c(site.into()).into()])?
            }
            (Id::ModelCasecmp, n) if n == 2 + usize::from(name == "strncasecmp") => {
                let (Some(a), Some(b)) = (p(0), p(1)) else { return Ok(None) };
                if int_width(i.get_type()).is_none() {
                    return Ok(None);
                }
                let n = match int(2) {
                    Some(n) => {
                        self.pin_all(i, args)?;
                        n
                    }
                    None => i64t.const_all_ones().into(),
                };
                self.after(i);
                let n = self.wide(n, false)?;
                self.call(self.abi[Id::ModelCasecmp], &[a, b, n.into()])?
            }
            (Id::ModelStrtok, n) if ret_ptr => {
                // The runtime's kinds: strtok 0, strtok_r 1, strsep 2.
                let (kind, s, delim, save) = match (name, n) {
                    ("strtok", 2) => (0, p(0), p(1), Some(self.null())),
                    ("strsep", 2) => (2, Some(self.null()), p(1), p(0)),
                    ("strtok_r" | "__strtok_r", 3) => (1, p(0), p(1), p(2)),
                    _ => return Ok(None),
                };
                let (Some(s), Some(delim), Some(save)) = (s, delim, save) else { return Ok(None) };
                let kind = self.i32c(kind);
                self.b.position_before(&i);
                self.call(self.abi[Id::ModelStrtokPre], &[kind.into(), s, delim, save])?;
                self.after(i);
                let (r, site) = (self.result(i)?, self.site());
                self.call(self.abi[Id::ModelStrtok], &[kind.into(), delim, save, r, self.i32c(site.into()).into()])?;
                None
            }
            (Id::ModelMbrtowc, n) if n == 3 + usize::from(name == "mbrtowc") && int_width(i.get_type()) == Some(64) => {
                let at = usize::from(name == "mbrtowc");
                let pwc = if at == 1 { p(0) } else { Some(self.null()) };
                let (Some(pwc), Some(s), Some(n)) = (pwc, p(at), int(at + 1)) else { return Ok(None) };
                self.after(i);
                let sn = self.or_zero(self.shadow(n));
                let (nv, r) = (self.wide(n, false)?, self.wide(self.result(i)?, false)?);
                let site = self.site();
                let site = self.i32c(site.into());
                self.call(self.abi[Id::ModelMbrtowc], &[pwc, s, nv.into(), sn.into(), r.into(), site.into()])?
            }
            (Id::ModelWcrtomb, 3) if int_width(i.get_type()) == Some(64) => {
                let (Some(s), Some(wc)) = (p(0), int(1)) else { return Ok(None) };
                self.after(i);
                let sw = self.or_zero(self.shadow(wc));
                let (wv, r) = (self.wide(wc, false)?, self.wide(self.result(i)?, false)?);
                let site = self.site();
                let site = self.i32c(site.into());
                self.call(self.abi[Id::ModelWcrtomb], &[s, wv.into(), sw.into(), r.into(), site.into()])?;
                None
            }
            (Id::ModelWchar, 1) if int_width(i.get_type()) == Some(32) => {
                let Some(ch) = int(0) else { return Ok(None) };
                self.after(i);
                let sc = self.or_zero(self.shadow(ch));
                let (cv, r) = (self.wide(ch, false)?, self.wide(self.result(i)?, false)?);
                let site = self.site();
                let a = [self.i32c(kind).into(), cv.into(), sc.into(), r.into(), self.i32c(site.into()).into()];
                self.call(self.abi[Id::ModelWchar], &a)?
            }
            (Id::ModelWctob, 1) if int_width(i.get_type()) == Some(32) => {
                let Some(ch) = int(0) else { return Ok(None) };
                self.after(i);
                let sc = self.or_zero(self.shadow(ch));
                let (cv, r) = (self.wide(ch, false)?, self.wide(self.result(i)?, false)?);
                let site = self.site();
                let (kind, site) = (self.i32c(kind), self.i32c(site.into()));
                let a = [kind.into(), cv.into(), sc.into(), r.into(), site.into()];
                self.call(self.abi[Id::ModelWctob], &a)?
            }
            _ => return Ok(None),
        };
        Ok(Some(r))
    }
}
