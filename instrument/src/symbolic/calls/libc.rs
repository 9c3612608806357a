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
use model::chars::wide_char_kind;

/// What a scanf-like call reads: a string, or a stream.
#[derive(Clone, Copy, PartialEq)]
enum Scan {
    String,
    Stream,
}

/// `(reads, format's argument, takes a va_list)` of a scanf-like call.
fn scan_kind(name: &str) -> Option<(Scan, usize, bool)> {
    let name = name.strip_prefix("__isoc99_").unwrap_or(name);
    Some(match name {
        "sscanf" => (Scan::String, 1, false),
        "vsscanf" => (Scan::String, 1, true),
        "fscanf" => (Scan::Stream, 1, false),
        "vfscanf" => (Scan::Stream, 1, true),
        "scanf" => (Scan::Stream, 0, false),
        "vscanf" => (Scan::Stream, 0, true),
        _ => return None,
    })
}

/// The `strtol` family: `(base, signed)`, `base` `None` for the call's own.
fn strtol_kind(name: &str) -> Option<(Option<u64>, bool)> {
    Some(match name {
        "atoi" | "atol" | "atoll" => (Some(10), true),
        "strtol" | "strtoll" | "strtoimax" | "strtoq" => (None, true),
        "strtoul" | "strtoull" | "strtoumax" | "strtouq" => (None, false),
        _ => return None,
    })
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

    /// A model for `name` when libc's parsers and searches have one: its
    /// calls are built and the result's shadow set; false for any other.
    pub(super) fn libc_model(
        &mut self,
        i: InstructionValue<'ctx>,
        name: &str,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<bool, Error> {
        let p = |k: usize| self.ptr_arg(args, k);
        let result = if let Some((scan, fmt, va)) = scan_kind(name) {
            let first = fmt + 1;
            let (Some(fmt_p), true) = (p(fmt), args.len() >= first) else { return Ok(false) };
            if int_width(i.get_type()) != Some(32) || (scan == Scan::String && p(0).is_none()) {
                return Ok(false);
            }
            if va {
                let Some(ap) = p(first) else { return Ok(false) };
                self.b.position_before(&i);
                self.call(self.abi.scanf_va, &[ap])?;
            }
            self.after(i);
            let nargs = if va {
                u32::MAX as u64
            } else {
                for (k, a) in args[first..].iter().enumerate() {
                    let a = if a.is_pointer_value() { *a } else { self.null() };
                    self.call(self.abi.scanf_arg, &[self.i32c(k as u64).into(), a])?;
                }
                (args.len() - first) as u64
            };
            let ret = self.wide(self.result(i)?, true)?;
            let n = self.i32c(nargs);
            if scan == Scan::Stream {
                self.call(self.abi.model_fscanf, &[fmt_p, ret.into(), n.into()])?;
                return Ok(true);
            }
            let site = self.site();
            let site = self.i32c(site.into());
            self.call(self.abi.model_sscanf, &[site.into(), args[0], fmt_p, ret.into(), n.into()])?
        } else if let Some((base, signed)) = strtol_kind(name) {
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
            self.call(self.abi.model_strtol, &a)?
        } else {
            match self.search_model(i, name, args)? {
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
    /// result's shadow when `name` is one.
    fn search_model(
        &mut self,
        i: InstructionValue<'ctx>,
        name: &str,
        args: &[BasicValueEnum<'ctx>],
    ) -> Result<Option<Option<IntValue<'ctx>>>, Error> {
        let p = |k: usize| self.ptr_arg(args, k);
        let int = |k: usize| args.get(k).filter(|a| a.is_int_value()).copied();
        let i64t = self.ctx.i64_type();
        let ret_ptr = i.get_type().is_pointer_type();
        let r = match (name, args.len()) {
            ("strchr" | "strrchr" | "strchrnul", 2) | ("memchr", 3) if ret_ptr => {
                let (Some(s), Some(c)) = (p(0), int(1)) else { return Ok(None) };
                let kind = match name {
                    "strchr" => 0,
                    "strrchr" => 1,
                    "memchr" => 2,
                    _ => 3,
                };
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
                self.call(self.abi.model_strchr, &a)?
            }
            ("strspn" | "strcspn" | "strpbrk", 2) => {
                let (Some(s), Some(set)) = (p(0), p(1)) else { return Ok(None) };
                if ret_ptr != (name == "strpbrk") {
                    return Ok(None);
                }
                let kind = ["strspn", "strcspn", "strpbrk"].iter().position(|&k| k == name).unwrap_or(0) as u64;
                self.after(i);
                let sp = self.or_zero(self.shadow(s));
                let r = self.wide(self.result(i)?, false)?;
                let site = self.site();
                let a = [self.i32c(kind).into(), s, sp.into(), set, r.into(), self.i32c(site.into()).into()];
                self.call(self.abi.model_strspn, &a)?
            }
            ("strstr", 2) if ret_ptr => {
                let (Some(h), Some(n)) = (p(0), p(1)) else { return Ok(None) };
                self.after(i);
                let sh = self.or_zero(self.shadow(h));
                let (r, site) = (self.result(i)?, self.site());
                self.call(self.abi.model_strstr, &[h, sh.into(), n, r, self.i32c(site.into()).into()])?
            }
            ("strcasecmp", 2) | ("strncasecmp", 3) => {
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
                self.call(self.abi.model_casecmp, &[a, b, n.into()])?
            }
            ("strtok", 2) | ("strtok_r" | "__strtok_r", 3) | ("strsep", 2) if ret_ptr => {
                let (kind, s, delim, save) = match name {
                    "strtok" => (0, p(0), p(1), Some(self.null())),
                    "strsep" => (2, Some(self.null()), p(1), p(0)),
                    _ => (1, p(0), p(1), p(2)),
                };
                let (Some(s), Some(delim), Some(save)) = (s, delim, save) else { return Ok(None) };
                let kind = self.i32c(kind);
                self.b.position_before(&i);
                self.call(self.abi.model_strtok_pre, &[kind.into(), s, delim, save])?;
                self.after(i);
                let (r, site) = (self.result(i)?, self.site());
                self.call(self.abi.model_strtok, &[kind.into(), delim, save, r, self.i32c(site.into()).into()])?;
                None
            }
            ("mbrtowc", 4) | ("mbrlen", 3) if int_width(i.get_type()) == Some(64) => {
                let at = usize::from(name == "mbrtowc");
                let pwc = if at == 1 { p(0) } else { Some(self.null()) };
                let (Some(pwc), Some(s), Some(n)) = (pwc, p(at), int(at + 1)) else { return Ok(None) };
                self.after(i);
                let sn = self.or_zero(self.shadow(n));
                let (nv, r) = (self.wide(n, false)?, self.wide(self.result(i)?, false)?);
                let site = self.site();
                let site = self.i32c(site.into());
                self.call(self.abi.model_mbrtowc, &[pwc, s, nv.into(), sn.into(), r.into(), site.into()])?
            }
            ("wcrtomb", 3) if int_width(i.get_type()) == Some(64) => {
                let (Some(s), Some(wc)) = (p(0), int(1)) else { return Ok(None) };
                self.after(i);
                let sw = self.or_zero(self.shadow(wc));
                let (wv, r) = (self.wide(wc, false)?, self.wide(self.result(i)?, false)?);
                let site = self.site();
                let site = self.i32c(site.into());
                self.call(self.abi.model_wcrtomb, &[s, wv.into(), sw.into(), r.into(), site.into()])?;
                None
            }
            (_, 1) if wide_char_kind(name).is_some() && int_width(i.get_type()) == Some(32) => {
                let (Some(kind), Some(ch)) = (wide_char_kind(name), int(0)) else { return Ok(None) };
                let kind = u64::from(kind);
                self.after(i);
                let sc = self.or_zero(self.shadow(ch));
                let (cv, r) = (self.wide(ch, false)?, self.wide(self.result(i)?, false)?);
                let site = self.site();
                let a = [self.i32c(kind).into(), cv.into(), sc.into(), r.into(), self.i32c(site.into()).into()];
                self.call(self.abi.model_wchar, &a)?
            }
            ("wctob" | "btowc", 1) if int_width(i.get_type()) == Some(32) => {
                let Some(ch) = int(0) else { return Ok(None) };
                self.after(i);
                let sc = self.or_zero(self.shadow(ch));
                let (cv, r) = (self.wide(ch, false)?, self.wide(self.result(i)?, false)?);
                let site = self.site();
                let (kind, site) = (self.i32c(u64::from(name == "wctob")), self.i32c(site.into()));
                let a = [kind.into(), cv.into(), sc.into(), r.into(), site.into()];
                self.call(self.abi.model_wctob, &a)?
            }
            _ => return Ok(None),
        };
        Ok(Some(r))
    }
}
