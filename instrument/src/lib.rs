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
pub mod driver;
pub mod edges;
pub mod globals;
mod ir;
pub mod module_init;
pub mod symbolic;

use inkwell::context::Context;
use inkwell::module::Module;
use std::path::Path;

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
/// Order matters: the branches to count are collected first; the probes
/// that split blocks (calls) come after those that only insert
/// instructions (globals, allocations); the counters are placed last, on
/// the branches collected at first, so no probe's own branch is counted.
pub fn instrument_module<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>) -> Result<Stats, Error> {
    let area = module_init::area_global(ctx, module);
    let funcs: Vec<_> = module.get_functions().filter(|f| ir::is_instrumentable(*f)).collect();
    let plan = edges::plan(&funcs);
    let globals = globals::instrument(ctx, module, &funcs)?;
    allocs::instrument(ctx, module, &funcs)?;
    let tramps = calls::instrument(ctx, module, &funcs)?;
    let mut stats = edges::instrument(ctx, area, &funcs, plan)?;
    // The symbolic clones copy the probes above (their counters count in
    // symbolic replay too), not the constructor or the hook at main.
    let sym_tramps = symbolic::instrument(ctx, module, &tramps)?;
    stats.has_main = module_init::hook_main(ctx, module)?;
    module_init::add_constructor(
        ctx,
        module,
        area,
        &stats,
        &module_init::Tables { funcs: &funcs, tramps: &tramps, sym_tramps: &sym_tramps, globals: &globals },
    )?;
    module.verify().map_err(|e| Error::Verify(e.to_string()))?;
    Ok(stats)
}

/// Reads bitcode from `input`, instruments it and writes it to `output`.
pub fn instrument_file(input: &Path, output: &Path) -> Result<Stats, Error> {
    let ctx = Context::create();
    let module = Module::parse_bitcode_from_path(input, &ctx)
        .map_err(|e| Error::ReadBitcode { path: input.display().to_string(), msg: e.to_string() })?;
    let stats = instrument_module(&ctx, &module)?;
    if !module.write_bitcode_to_path(output) {
        return Err(Error::WriteBitcode { path: output.display().to_string() });
    }
    Ok(stats)
}
