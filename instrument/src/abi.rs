//! The runtime's entry points as the probes see them: each is declared
//! from the one table, `model::abi` (names and machine types; the runtime
//! defines them, `runtime/include/carve_rt.h` says what each does), and the
//! names the instrumentation gives what it adds.

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::FunctionValue;
use inkwell::AddressSpace;
pub use model::abi::{Id, DUMMY_MAP, TRACKING};

/// Per-module (internal) pointer to the module's slice of the map.
pub const AREA: &str = "__carve_area";
/// Per-module (internal) constructor that registers the module.
pub const MODULE_CTOR: &str = "__carve_module_ctor";
/// Prefix of everything the instrumentation adds; such functions are never
/// instrumented themselves.
pub const PREFIX: &str = "__carve_";
/// Prefixes of every runtime entry point (the probes' and the symbolic
/// clones'): a program exports them for the shared libraries it loads.
pub const RUNTIME_PREFIXES: [&str; 2] = [PREFIX, "__sym_"];
/// Priority of the registration constructor: before any user constructor.
pub const CTOR_PRIORITY: u64 = 1;

/// Entry point `id`, declared in `module` with the table's types (or as
/// the module already declares it).
pub fn declare<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>, id: Id) -> FunctionValue<'ctx> {
    let e = id.entry();
    if let Some(f) = module.get_function(e.name) {
        return f;
    }
    let ty = |t| -> Option<BasicTypeEnum<'ctx>> {
        Some(match t {
            model::abi::Ty::Void => return None,
            model::abi::Ty::I32 => ctx.i32_type().into(),
            model::abi::Ty::I64 => ctx.i64_type().into(),
            model::abi::Ty::Ptr => ctx.ptr_type(AddressSpace::default()).into(),
        })
    };
    let params: Vec<BasicMetadataTypeEnum<'ctx>> = e.params.iter().filter_map(|&t| ty(t)).map(Into::into).collect();
    let fn_type = match ty(e.ret) {
        Some(r) => r.fn_type(&params, false),
        None => ctx.void_type().fn_type(&params, false),
    };
    module.add_function(e.name, fn_type, None)
}
