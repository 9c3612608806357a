//! The instrumentation pass of `carve-clang` and the compiler driver around it.
//!
//! [`instrument_module`] rewrites one LLVM module in place. Every kind of
//! probe has a module of its own: [`edges`] (coverage counters) and
//! [`module_init`] (registration with the runtime, the `main` hook). The
//! runtime functions the probes call are named once, in [`abi`].

pub mod abi;
pub mod allocs;
mod attrs;
pub mod calls;
pub mod clone;
pub mod driver;
pub mod edges;
pub mod entries;
pub mod globals;
mod ir;
pub mod module_init;
pub mod preserve;
pub mod symbolic;
pub mod tokens;

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::FunctionValue;
use std::path::Path;

/// How a module is instrumented, beyond what every module gets.
#[derive(Debug, Default, Clone, Copy)]
pub struct Options {
    /// The module is compiled for a shared library (`-fPIC`): its exported
    /// functions go to their copies while the runtime tracks
    /// ([`entries`]).
    pub library_entries: bool,
}

/// What the instrumentation did to one module.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stats {
    pub functions: u32,
    /// Counters: function entries plus branch outcomes.
    pub edges: u32,
    /// Counters on outcomes of conditional branches and switches.
    pub branches: u32,
    pub has_main: bool,
    /// Each function's branch-outcome ids: `(first, count)`, module-local.
    pub function_branches: Vec<(u32, u32)>,
}

/// Errors of the pass.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read bitcode {path}: {msg}")]
    ReadBitcode { path: String, msg: String },
    #[error("cannot write bitcode {path}")]
    WriteBitcode { path: String },
    #[error("instrumented module does not verify: {0}")]
    Verify(String),
    #[error("LLVM refused to build an instruction: {0}")]
    Build(#[from] inkwell::builder::BuilderError),
}

/// Instruments every defined function of `module`.
///
/// Every function gets the edge counters. The probes of carving (calls,
/// allocations, stores to globals), the replay trampolines and the
/// symbolic clones go to the units: the out-of-line copies when
/// [`preserve::prepare`] made them before the optimiser, else every
/// function.
///
/// Order matters: the branches to count are collected first; the probes
/// that split blocks (calls) come after those that only insert
/// instructions (globals, allocations); the counters are placed last, on
/// the branches collected at first, so no probe's own branch is counted.
pub fn instrument_module<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>, opts: &Options) -> Result<Stats, Error> {
    let area = module_init::area_global(ctx, module);
    let funcs: Vec<_> = module.get_functions().filter(|f| ir::is_instrumentable(*f)).collect();
    let prepared = funcs.iter().any(|f| preserve::is_copy(*f));
    // Before any probe adds comparisons of its own.
    let tokens = tokens::collect(&funcs);
    let plan = edges::plan(ctx, &funcs);
    let units: Vec<(FunctionValue<'ctx>, u32)> =
        plan.function_ids().filter(|(f, _)| !prepared || preserve::is_copy(*f)).collect();
    let unit_funcs: Vec<FunctionValue<'ctx>> = units.iter().map(|(f, _)| *f).collect();
    let entries = table_entries(module, &plan, &units);
    let globals = globals::instrument(ctx, module, &unit_funcs)?;
    allocs::instrument(ctx, module, &unit_funcs)?;
    let tramps = calls::instrument(ctx, module, &units)?;
    let mut stats = edges::instrument(ctx, area, plan)?;
    // The symbolic clones copy the probes above (their counters count in
    // symbolic replay too), not the constructor or the hook at main.
    let sym_tramps = symbolic::instrument(ctx, module, &unit_funcs, &tramps)?;
    if prepared {
        preserve::redirect_external_calls(ctx, module, &unit_funcs)?;
        if opts.library_entries {
            entries::dispatch(ctx, module, &unit_funcs)?;
        }
    }
    stats.has_main = module_init::hook_main(ctx, module)?;
    let mut table: Vec<module_init::Entry<'ctx>> = entries
        .into_iter()
        .map(|e| match e {
            Some((func, name)) => {
                module_init::Entry { func: Some(func), name, tramp: None, sym_tramp: None, copy: None, sym: None }
            }
            None => module_init::Entry {
                func: None,
                name: String::new(),
                tramp: None,
                sym_tramp: None,
                copy: None,
                sym: None,
            },
        })
        .collect();
    for (((unit, id), tramp), sym) in units.iter().zip(&tramps).zip(&sym_tramps) {
        let e = &mut table[*id as usize];
        e.tramp = *tramp;
        e.sym_tramp = *sym;
        if prepared {
            e.copy = Some(*unit);
            e.sym = module.get_function(&symbolic::sym_name(&unit.get_name().to_string_lossy()));
        }
    }
    module_init::add_constructor(
        ctx,
        module,
        area,
        &stats,
        &module_init::Tables { funcs: &table, globals: &globals, tokens: &tokens },
    )?;
    module.verify().map_err(|e| Error::Verify(e.to_string()))?;
    Ok(stats)
}

/// For each function id, the function whose address stands for it (what a
/// function pointer in the program holds: the original, when the optimiser
/// kept it out of line) and its name in the source.
fn table_entries<'ctx>(
    module: &Module<'ctx>,
    plan: &edges::Plan<'ctx>,
    units: &[(FunctionValue<'ctx>, u32)],
) -> Vec<Option<(FunctionValue<'ctx>, String)>> {
    let mut out: Vec<Option<(FunctionValue<'ctx>, String)>> = vec![None; plan.entries() as usize];
    for &(f, id) in units.iter().chain(plan.function_ids().collect::<Vec<_>>().iter()) {
        let slot = &mut out[id as usize];
        if slot.is_some() {
            continue;
        }
        let own = f.get_name().to_string_lossy().into_owned();
        let name = preserve::original_name(&own).to_string();
        let func = module.get_function(&name).filter(|g| g.count_basic_blocks() > 0).unwrap_or(f);
        *slot = Some((func, name));
    }
    out
}

/// Reads bitcode from `input`, instruments it and writes it to `output`.
pub fn instrument_file(input: &Path, output: &Path, opts: &Options) -> Result<Stats, Error> {
    let ctx = Context::create();
    let module = Module::parse_bitcode_from_path(input, &ctx)
        .map_err(|e| Error::ReadBitcode { path: input.display().to_string(), msg: e.to_string() })?;
    let stats = instrument_module(&ctx, &module, opts)?;
    if !module.write_bitcode_to_path(output) {
        return Err(Error::WriteBitcode { path: output.display().to_string() });
    }
    Ok(stats)
}

/// Reads unoptimised bitcode from `input`, adds the out-of-line copies and
/// source tags ([`preserve::prepare`]) and writes it to `output`.
pub fn prepare_file(input: &Path, output: &Path) -> Result<preserve::Prepared, Error> {
    let ctx = Context::create();
    let module = Module::parse_bitcode_from_path(input, &ctx)
        .map_err(|e| Error::ReadBitcode { path: input.display().to_string(), msg: e.to_string() })?;
    let done = preserve::prepare(&ctx, &module)?;
    module.verify().map_err(|e| Error::Verify(e.to_string()))?;
    if !module.write_bitcode_to_path(output) {
        return Err(Error::WriteBitcode { path: output.display().to_string() });
    }
    Ok(done)
}
