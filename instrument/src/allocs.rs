//! Allocation probes: calls of the malloc family, `free`, `strdup`-like and
//! `getline`-like functions, and libc's functions that return a record in
//! a buffer of their own (`getutxent`, `getpwent`...), tell the runtime
//! which heap objects exist and how large they are (the runtime ignores
//! them unless it tracks).

use crate::{abi, ir, Error};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, CallSiteValue, FunctionValue, InstructionOpcode};
use inkwell::AddressSpace;

/// What a call site allocates or frees.
#[derive(Clone, Copy)]
enum Kind {
    /// Result, size = product of the given arguments.
    Malloc(&'static [u32]),
    /// realloc(old, size...): old pointer arg, size args.
    Realloc(u32, &'static [u32]),
    /// posix_memalign(&p, align, size).
    PosixMemalign,
    Free,
    /// Result is a NUL-terminated string.
    Strdup,
    /// getline(&line, &n, ...) / getdelim.
    Getline,
    /// Result is a fresh stdio stream.
    Stream,
    /// Result is a record in libc's buffer: the function's place in the
    /// probe's list.
    Record(u32),
}

/// The probe for a call of `name` (which probe: `model::abi`).
fn kind(name: &str) -> Option<Kind> {
    Some(match model::abi::probe(name)? {
        abi::Id::OnAlloc => match name {
            "calloc" => Kind::Malloc(&[0, 1]),
            "aligned_alloc" | "memalign" => Kind::Malloc(&[1]),
            "posix_memalign" => Kind::PosixMemalign,
            _ => Kind::Malloc(&[0]),
        },
        abi::Id::OnRealloc => Kind::Realloc(0, if name == "reallocarray" { &[1, 2] } else { &[1] }),
        abi::Id::OnFree => Kind::Free,
        abi::Id::OnString => Kind::Strdup,
        abi::Id::OnGetline => Kind::Getline,
        abi::Id::OnStream => Kind::Stream,
        abi::Id::OnRecord => Kind::Record(abi::Id::OnRecord.entry().libc.iter().position(|&n| n == name)? as u32),
        _ => return None,
    })
}

/// Adds the probes around allocation calls in `funcs`; returns how many.
pub fn instrument<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    funcs: &[FunctionValue<'ctx>],
) -> Result<u32, Error> {
    let ptr_t = ctx.ptr_type(AddressSpace::default());
    let decl = |id| abi::declare(ctx, module, id);
    let on_alloc = decl(abi::Id::OnAlloc);
    let on_realloc = decl(abi::Id::OnRealloc);
    let on_free = decl(abi::Id::OnFree);
    let on_string = decl(abi::Id::OnString);
    let on_getline = decl(abi::Id::OnGetline);
    let on_stream = decl(abi::Id::OnStream);
    let on_record = decl(abi::Id::OnRecord);
    let b = ctx.create_builder();
    let mut n = 0;
    for f in funcs {
        for bb in f.get_basic_blocks() {
            for call in ir::instructions(bb).into_iter().filter(|i| i.get_opcode() == InstructionOpcode::Call) {
                let site = CallSiteValue::try_from(call).expect("a call");
                let Some(callee) = site.get_called_fn_value() else { continue };
                let Some(k) = kind(&callee.get_name().to_string_lossy()) else { continue };
                // A callee declared otherwise than libc declares it (autoconf's
                // `char malloc (void)`) gets no probe: arguments past those
                // passed, or of another type, are not there to read.
                let nargs = site.count_arguments();
                let arg = |i: u32| -> Option<BasicValueEnum<'ctx>> {
                    (i < nargs).then(|| call.get_operand(i).and_then(|o| o.value())).flatten()
                };
                let ptr_arg = |i: u32| arg(i).filter(|v| v.is_pointer_value());
                let result = || -> Option<BasicValueEnum<'ctx>> {
                    site.try_as_basic_value().basic().filter(|v| v.is_pointer_value())
                };
                let Some(next) = call.get_next_instruction() else { continue };
                match k {
                    Kind::Malloc(sizes) | Kind::Realloc(_, sizes) => {
                        let Some(res) = result() else { continue };
                        b.position_before(&next);
                        let Some(size) = product(&b, ctx, sizes.iter().map(|&i| arg(i)))? else { continue };
                        match k {
                            Kind::Realloc(old, _) => {
                                let Some(old) = ptr_arg(old) else { continue };
                                b.build_call(on_realloc, &[old.into(), res.into(), size.into()], "")?;
                            }
                            _ => {
                                b.build_call(on_alloc, &[res.into(), size.into()], "")?;
                            }
                        }
                    }
                    Kind::PosixMemalign => {
                        let (Some(pp), Some(size)) = (ptr_arg(0), arg(2).filter(|v| v.is_int_value())) else {
                            continue;
                        };
                        b.position_before(&next);
                        let p = b.build_load(ptr_t, pp.into_pointer_value(), "")?;
                        let size = widen(&b, ctx, size)?;
                        b.build_call(on_alloc, &[p.into(), size.into()], "")?;
                    }
                    Kind::Free => {
                        let Some(p) = ptr_arg(0) else { continue };
                        b.position_before(&call);
                        b.build_call(on_free, &[p.into()], "")?;
                    }
                    Kind::Strdup | Kind::Stream => {
                        let Some(res) = result() else { continue };
                        b.position_before(&next);
                        let hook = if matches!(k, Kind::Strdup) { on_string } else { on_stream };
                        b.build_call(hook, &[res.into()], "")?;
                    }
                    // libc's, not a function of the program's own so named.
                    Kind::Record(k) if callee.count_basic_blocks() == 0 => {
                        let Some(res) = result() else { continue };
                        b.position_before(&next);
                        b.build_call(
                            on_record,
                            &[res.into(), ctx.i32_type().const_int(u64::from(k), false).into()],
                            "",
                        )?;
                    }
                    Kind::Record(_) => continue,
                    Kind::Getline => {
                        let (Some(lp), Some(np)) = (ptr_arg(0), ptr_arg(1)) else { continue };
                        // The old buffer (freed or kept by libc) before, the new after.
                        b.position_before(&call);
                        let old = b.build_load(ptr_t, lp.into_pointer_value(), "")?;
                        b.position_before(&next);
                        let args: [BasicMetadataValueEnum<'ctx>; 3] = [old.into(), lp.into(), np.into()];
                        b.build_call(on_getline, &args, "")?;
                    }
                }
                n += 1;
            }
        }
    }
    Ok(n)
}

fn widen<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    ctx: &'ctx Context,
    v: BasicValueEnum<'ctx>,
) -> Result<inkwell::values::IntValue<'ctx>, Error> {
    let i = v.into_int_value();
    Ok(if i.get_type().get_bit_width() < 64 { b.build_int_z_extend(i, ctx.i64_type(), "")? } else { i })
}

/// The product of the integer arguments (`None` if one is missing).
fn product<'ctx>(
    b: &inkwell::builder::Builder<'ctx>,
    ctx: &'ctx Context,
    vals: impl Iterator<Item = Option<BasicValueEnum<'ctx>>>,
) -> Result<Option<inkwell::values::IntValue<'ctx>>, Error> {
    let mut acc: Option<inkwell::values::IntValue<'ctx>> = None;
    for v in vals {
        let Some(v) = v.filter(|v| v.is_int_value()) else { return Ok(None) };
        let v = widen(b, ctx, v)?;
        acc = Some(match acc {
            Some(a) => b.build_int_mul(a, v, "")?,
            None => v,
        });
    }
    Ok(acc)
}
