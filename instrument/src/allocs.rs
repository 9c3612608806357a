//! Allocation probes: calls of the malloc family, `free`, `strdup`-like and
//! `getline`-like functions tell the runtime which heap objects exist and
//! how large they are (the runtime ignores them unless it tracks).

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
}

fn kind(name: &str) -> Option<Kind> {
    Some(match name {
        "malloc" | "valloc" | "pvalloc" => Kind::Malloc(&[0]),
        "calloc" => Kind::Malloc(&[0, 1]),
        "aligned_alloc" | "memalign" => Kind::Malloc(&[1]),
        "realloc" => Kind::Realloc(0, &[1]),
        "reallocarray" => Kind::Realloc(0, &[1, 2]),
        "posix_memalign" => Kind::PosixMemalign,
        "free" | "cfree" | "fclose" | "pclose" => Kind::Free,
        "fopen" | "fopen64" | "fdopen" | "freopen" | "freopen64" | "tmpfile" | "tmpfile64" | "popen" | "fmemopen"
        | "open_memstream" => Kind::Stream,
        "strdup" | "strndup" | "__strdup" => Kind::Strdup,
        "getline" | "getdelim" | "__getdelim" => Kind::Getline,
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
    let i64t = ctx.i64_type();
    let void = ctx.void_type();
    let decl = |name: &str, params: &[inkwell::types::BasicMetadataTypeEnum<'ctx>]| {
        module.get_function(name).unwrap_or_else(|| module.add_function(name, void.fn_type(params, false), None))
    };
    let on_alloc = decl(abi::ON_ALLOC, &[ptr_t.into(), i64t.into()]);
    let on_realloc = decl(abi::ON_REALLOC, &[ptr_t.into(), ptr_t.into(), i64t.into()]);
    let on_free = decl(abi::ON_FREE, &[ptr_t.into()]);
    let on_string = decl(abi::ON_STRING, &[ptr_t.into()]);
    let on_getline = decl(abi::ON_GETLINE, &[ptr_t.into(), ptr_t.into(), ptr_t.into()]);
    let on_stream = decl(abi::ON_STREAM, &[ptr_t.into()]);
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
