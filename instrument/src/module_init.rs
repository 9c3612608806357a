//! Module-level plumbing: the module's map pointer, its registration
//! constructor, and the hook at the start of `main`.

use crate::{abi, ir, Error, Stats};
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::{AsValueRef, BasicValue, FunctionValue, GlobalValue};
use inkwell::AddressSpace;
use model::MAP_SIZE;

/// The module's internal pointer into the map, initialised to the runtime's
/// dummy map so that probes are safe before registration.
pub fn area_global<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>) -> GlobalValue<'ctx> {
    if let Some(g) = module.get_global(abi::AREA) {
        return g;
    }
    let dummy_ty = ctx.i8_type().array_type(MAP_SIZE as u32);
    let dummy = module.get_global(abi::DUMMY_MAP).unwrap_or_else(|| module.add_global(dummy_ty, None, abi::DUMMY_MAP));
    let ptr_t = ctx.ptr_type(AddressSpace::default());
    let area = module.add_global(ptr_t, None, abi::AREA);
    area.set_linkage(Linkage::Internal);
    area.set_initializer(&dummy.as_pointer_value().as_basic_value_enum());
    area
}

/// Inserts `__carve_main_entry(&argc, &argv)` at the start of `main` when
/// this module defines it; afterwards `main` reads `argc` and `argv` back
/// from those slots, so the runtime can give each forked run its own
/// command line. When the hook says the runtime carves and the module has
/// `main`'s out-of-line copy ([`crate::preserve`]), `main` returns what the
/// copy returns instead: carving runs the copies. Returns whether it did.
pub fn hook_main<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>) -> Result<bool, Error> {
    let Some(main) = module.get_function("main").filter(|f| ir::is_instrumentable(*f)) else {
        return Ok(false);
    };
    let ptr_t = ctx.ptr_type(AddressSpace::default());
    let i32t = ctx.i32_type();
    let hook = abi::declare(ctx, module, abi::Id::MainEntry);
    let entry = main.get_first_basic_block().expect("main has a body");
    let builder = ctx.create_builder();
    match ir::hoist_static_allocas(entry) {
        Some(at) => builder.position_before(&at),
        None => builder.position_at_end(entry),
    }
    let params = main.get_params();
    let args = match (params.first(), params.get(1)) {
        (Some(argc), Some(argv)) if argc.is_int_value() && argv.is_pointer_value() => Some((*argc, *argv)),
        _ => None,
    };
    let (carving, last, call_args) = match args {
        None => {
            let r = builder.build_call(hook, &[ptr_t.const_null().into(), ptr_t.const_null().into()], "carve.mode")?;
            let last = r.try_as_basic_value().basic().and_then(|v| v.as_instruction_value()).expect("a call");
            (r.try_as_basic_value().basic().expect("i32").into_int_value(), last, params.clone())
        }
        Some((argc, argv)) => {
            let argc_slot = builder.build_alloca(argc.get_type(), "carve.argc")?;
            let argv_slot = builder.build_alloca(ptr_t, "carve.argv")?;
            let argc_store = builder.build_store(argc_slot, argc)?;
            let argv_store = builder.build_store(argv_slot, argv)?;
            let r = builder.build_call(hook, &[argc_slot.into(), argv_slot.into()], "carve.mode")?;
            let new_argc = builder.build_load(argc.get_type(), argc_slot, "carve.argc.v")?;
            let new_argv = builder.build_load(ptr_t, argv_slot, "carve.argv.v")?;
            // Every use of the parameters now reads the slots, except our stores.
            argc.into_int_value().replace_all_uses_with(new_argc.into_int_value());
            argv.into_pointer_value().replace_all_uses_with(new_argv.into_pointer_value());
            argc_store.set_operand(0, argc);
            argv_store.set_operand(0, argv);
            let mut call_args = params.clone();
            call_args[0] = new_argc;
            call_args[1] = new_argv;
            let last = new_argv.as_instruction_value().expect("a load");
            (r.try_as_basic_value().basic().expect("i32").into_int_value(), last, call_args)
        }
    };
    let copy = module.get_function(&format!("main{}", crate::preserve::SUFFIX));
    if let (Some(copy), Some(next)) = (copy, last.get_next_instruction()) {
        let rest = ir::split_before(ctx, next, "carve.main");
        let to_copy = ctx.insert_basic_block_after(entry, "carve.main.copy");
        builder.position_at_end(entry);
        let go = builder.build_int_compare(inkwell::IntPredicate::NE, carving, i32t.const_zero(), "")?;
        builder.build_conditional_branch(go, to_copy, rest)?;
        builder.position_at_end(to_copy);
        let args: Vec<_> = call_args.iter().map(|a| (*a).into()).collect();
        let v = builder.build_call(copy, &args, "")?;
        match v.try_as_basic_value().basic() {
            Some(v) => builder.build_return(Some(&v))?,
            None => builder.build_return(None)?,
        };
    }
    Ok(true)
}

/// One function id's entry in the module's function table.
pub struct Entry<'ctx> {
    /// What a function pointer to it holds (none when no copy of the
    /// function is left).
    pub func: Option<FunctionValue<'ctx>>,
    /// Its name in the source.
    pub name: String,
    /// The replay trampoline of its unit.
    pub tramp: Option<FunctionValue<'ctx>>,
    /// The trampoline of its unit's symbolic clone.
    pub sym_tramp: Option<FunctionValue<'ctx>>,
    /// Its out-of-line copy, and that copy's symbolic clone.
    pub copy: Option<FunctionValue<'ctx>>,
    pub sym: Option<FunctionValue<'ctx>>,
}

/// What the constructor hands the runtime besides the counters.
pub struct Tables<'a, 'ctx> {
    /// The functions, in id order.
    pub funcs: &'a [Entry<'ctx>],
    pub globals: &'a crate::globals::Globals<'ctx>,
    /// The module's dictionary ([`crate::tokens`]).
    pub tokens: &'a [Vec<u8>],
}

/// Adds an internal constructor that registers the module with the runtime,
/// to `llvm.global_ctors`:
/// `__carve_register_module(&area, edges, branches, functab, nfuncs, globtab, nglobals, dirty)`
/// with `functab` = `{ i32 fn, i32 name, i32 tramp, i32 first_branch,
/// i32 branches, i32 sym_tramp, i32 copy, i32 sym }[nfuncs]` (the
/// function's branch-outcome ids, local to the module; the trampoline of
/// its symbolic clone; its out-of-line copy and the copy's clone) and
/// `globtab` = `{ i64 size, i32 addr, i32 name }[nglobals]`, where `fn`,
/// `name`, `tramp`, `sym_tramp` and `addr` are offsets from the table's
/// start (0 when the function has no trampoline).
/// LLVM's code generator takes an `unnamed_addr` constant holding a
/// pointer to another global, which a PC-relative difference refers to (as
/// the tables do), for a GOT entry: it writes the difference as `@GOTPCREL`
/// and drops the constant, though instructions still use it (they count
/// for nothing in its reckoning of the constant's uses; csmith's programs
/// failed to link on `undefined reference to g_759`). Without
/// `unnamed_addr` it is no candidate.
fn keep_out_of_got_equivalents(g: GlobalValue<'_>) {
    let points = g.get_initializer().is_some_and(|i| i.is_pointer_value());
    if g.is_constant() && points {
        g.set_unnamed_address(inkwell::values::UnnamedAddress::None);
    }
}

pub fn add_constructor<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    area: GlobalValue<'ctx>,
    stats: &Stats,
    t: &Tables<'_, 'ctx>,
) -> Result<(), Error> {
    let i32t = ctx.i32_type();
    let i64t = ctx.i64_type();
    let ptr_t = ctx.ptr_type(AddressSpace::default());
    let void = ctx.void_type();
    let register = abi::declare(ctx, module, abi::Id::RegisterModule);
    let name_of = |name: &str| -> inkwell::values::PointerValue<'ctx> {
        let bytes = ctx.const_string(name.as_bytes(), true);
        let g = module.add_global(bytes.get_type(), None, "carve.name");
        g.set_linkage(Linkage::Private);
        g.set_constant(true);
        g.set_initializer(&bytes);
        g.as_pointer_value()
    };
    // Entries hold offsets from the start of their table, not pointers: the
    // static linker resolves them, so loading the program costs no
    // relocation per function or global.
    let fn_t = ctx.struct_type(&[i32t.into(); 8], false);
    let functab = table_global(module, fn_t, t.funcs.len(), "carve.functab");
    let rel = |p: inkwell::values::PointerValue<'ctx>, table: Option<GlobalValue<'ctx>>| match table {
        Some(tb) => p.const_to_int(i64t).const_sub(tb.as_pointer_value().const_to_int(i64t)).const_truncate(i32t),
        None => i32t.const_zero(),
    };
    let fns: Vec<_> = t
        .funcs
        .iter()
        .zip(&stats.function_branches)
        .map(|(e, (first, count))| {
            let fun = |x: &Option<FunctionValue<'ctx>>| {
                x.map(|x| rel(x.as_global_value().as_pointer_value(), functab)).unwrap_or(i32t.const_zero())
            };
            let (tramp, sym) = (fun(&e.tramp), fun(&e.sym_tramp));
            fn_t.const_named_struct(&[
                fun(&e.func).into(),
                rel(name_of(&e.name), functab).into(),
                tramp.into(),
                i32t.const_int(u64::from(*first), false).into(),
                i32t.const_int(u64::from(*count), false).into(),
                sym.into(),
                fun(&e.copy).into(),
                fun(&e.sym).into(),
            ])
        })
        .collect();
    if let Some(g) = functab {
        g.set_initializer(&fn_t.const_array(&fns));
    }
    let gl_t = ctx.struct_type(&[i64t.into(), i32t.into(), i32t.into()], false);
    let globtab = table_global(module, gl_t, t.globals.table.len(), "carve.globtab");
    let gls: Vec<_> = t
        .globals
        .table
        .iter()
        .map(|(g, size)| {
            keep_out_of_got_equivalents(*g);
            gl_t.const_named_struct(&[
                i64t.const_int(*size, false).into(),
                rel(g.as_pointer_value(), globtab).into(),
                rel(name_of(&g.get_name().to_string_lossy()), globtab).into(),
            ])
        })
        .collect();
    if let Some(g) = globtab {
        g.set_initializer(&gl_t.const_array(&gls));
    }
    let functab = functab.map(|g| g.as_pointer_value()).unwrap_or(ptr_t.const_null());
    let globtab = globtab.map(|g| g.as_pointer_value()).unwrap_or(ptr_t.const_null());
    let dirty = t.globals.dirty.map(|d| d.as_pointer_value()).unwrap_or(ptr_t.const_null());

    let ctor = module.add_function(abi::MODULE_CTOR, void.fn_type(&[], false), Some(Linkage::Internal));
    let builder = ctx.create_builder();
    builder.position_at_end(ctx.append_basic_block(ctor, "entry"));
    // The tokens first: in a host built without carve-clang the first
    // module's registration may start the runtime, which lists them.
    if !t.tokens.is_empty() {
        let bytes = crate::tokens::encode(t.tokens);
        let blob = ctx.const_string(&bytes, false);
        let g = module.add_global(blob.get_type(), None, "carve.tokens");
        g.set_linkage(Linkage::Private);
        g.set_constant(true);
        g.set_initializer(&blob);
        let add = abi::declare(ctx, module, abi::Id::RegisterTokens);
        let len = i32t.const_int(bytes.len() as u64, false);
        builder.build_call(add, &[g.as_pointer_value().into(), len.into()], "")?;
    }
    let edges = stats.edges.min(MAP_SIZE as u32);
    builder.build_call(
        register,
        &[
            area.as_pointer_value().into(),
            i32t.const_int(edges as u64, false).into(),
            i32t.const_int(stats.branches as u64, false).into(),
            functab.into(),
            i32t.const_int(fns.len() as u64, false).into(),
            globtab.into(),
            i32t.const_int(gls.len() as u64, false).into(),
            dirty.into(),
        ],
        "",
    )?;
    builder.build_return(None)?;

    // llvm.global_ctors: appending array of { i32 priority, ptr fn, ptr data }.
    let entry_ty = ctx.struct_type(&[i32t.into(), ptr_t.into(), ptr_t.into()], false);
    let mine = entry_ty.const_named_struct(&[
        i32t.const_int(abi::CTOR_PRIORITY, false).into(),
        ctor.as_global_value().as_pointer_value().into(),
        ptr_t.const_null().into(),
    ]);
    let mut entries = vec![mine.as_value_ref()];
    entries.extend(ir::take_appending(module, "llvm.global_ctors"));
    let array_ty = entry_ty.array_type(entries.len() as u32);
    // SAFETY: every element is a constant of type `entry_ty`.
    let init = unsafe { inkwell::values::ArrayValue::new_raw_const_array(entry_ty.as_type_ref_(), &entries) };
    let g = module.add_global(array_ty, None, "llvm.global_ctors");
    g.set_linkage(Linkage::Appending);
    g.set_initializer(&init);
    Ok(())
}

trait TypeRef {
    fn as_type_ref_(&self) -> inkwell::llvm_sys::prelude::LLVMTypeRef;
}
impl TypeRef for inkwell::types::StructType<'_> {
    fn as_type_ref_(&self) -> inkwell::llvm_sys::prelude::LLVMTypeRef {
        inkwell::types::AsTypeRef::as_type_ref(self)
    }
}

/// A private constant array of `n` entries of `ty` (none when `n` is 0);
/// its initializer is set by the caller, which refers to its address.
fn table_global<'ctx>(
    module: &Module<'ctx>,
    ty: inkwell::types::StructType<'ctx>,
    n: usize,
    name: &str,
) -> Option<GlobalValue<'ctx>> {
    if n == 0 {
        return None;
    }
    let g = module.add_global(ty.array_type(n as u32), None, name);
    g.set_linkage(Linkage::Private);
    g.set_constant(true);
    Some(g)
}
