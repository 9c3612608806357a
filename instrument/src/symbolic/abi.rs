//! The `__sym_*` entry points of the runtime, declared from the one table
//! (`model::abi`, documented in `runtime/include/carve_rt.h`). Shadows are
//! `i32` expression ids, 0 meaning concrete; values travel as `i64`.

use crate::abi::{declare, Id};
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::FunctionValue;

/// The entry points, declared in one module: the instruction-level
/// operations by name, and any entry (a libc model) by its [`Id`].
pub struct Abi<'ctx> {
    /// `u32 __sym_overflow(kind, sa, sb, va, vb, width)`: the overflow flag
    /// of an `llvm.*.with.overflow` (kind: uadd, sadd, usub, ssub, umul,
    /// smul).
    pub overflow: FunctionValue<'ctx>,
    pub binop: FunctionValue<'ctx>,
    pub cmp: FunctionValue<'ctx>,
    pub cmp_ptr: FunctionValue<'ctx>,
    pub cast: FunctionValue<'ctx>,
    pub select: FunctionValue<'ctx>,
    pub gep: FunctionValue<'ctx>,
    pub load: FunctionValue<'ctx>,
    pub load_indexed: FunctionValue<'ctx>,
    pub store: FunctionValue<'ctx>,
    pub memcpy: FunctionValue<'ctx>,
    pub memset: FunctionValue<'ctx>,
    pub clear: FunctionValue<'ctx>,
    pub set_param: FunctionValue<'ctx>,
    pub get_param: FunctionValue<'ctx>,
    pub set_ret: FunctionValue<'ctx>,
    pub get_ret: FunctionValue<'ctx>,
    pub branch: FunctionValue<'ctx>,
    pub switch: FunctionValue<'ctx>,
    pub pin: FunctionValue<'ctx>,
    pub check_div: FunctionValue<'ctx>,
    pub check_access: FunctionValue<'ctx>,
    pub clone_of: FunctionValue<'ctx>,
    /// Every `__sym_*` entry, at its place in the table (`None` for the
    /// others).
    all: Vec<Option<FunctionValue<'ctx>>>,
}

impl<'ctx> Abi<'ctx> {
    pub fn declare(ctx: &'ctx Context, module: &Module<'ctx>) -> Abi<'ctx> {
        let all: Vec<_> = model::abi::ENTRIES
            .iter()
            .map(|e| e.name.starts_with("__sym_").then(|| declare(ctx, module, e.id)))
            .collect();
        let f = |id: Id| all[id as usize].expect("a __sym_ entry");
        Abi {
            binop: f(Id::Binop),
            overflow: f(Id::Overflow),
            cmp: f(Id::Cmp),
            cmp_ptr: f(Id::CmpPtr),
            cast: f(Id::Cast),
            select: f(Id::Select),
            gep: f(Id::Gep),
            load: f(Id::Load),
            load_indexed: f(Id::LoadIndexed),
            store: f(Id::Store),
            memcpy: f(Id::Memcpy),
            memset: f(Id::Memset),
            clear: f(Id::Clear),
            set_param: f(Id::SetParam),
            get_param: f(Id::GetParam),
            set_ret: f(Id::SetRet),
            get_ret: f(Id::GetRet),
            branch: f(Id::Branch),
            switch: f(Id::Switch),
            pin: f(Id::Pin),
            check_div: f(Id::CheckDiv),
            check_access: f(Id::CheckAccess),
            clone_of: f(Id::CloneOf),
            all,
        }
    }
}

impl<'ctx> std::ops::Index<Id> for Abi<'ctx> {
    type Output = FunctionValue<'ctx>;

    /// A `__sym_*` entry point (a panic for a `__carve_*` one: the clones
    /// call none).
    fn index(&self, id: Id) -> &FunctionValue<'ctx> {
        self.all[id as usize].as_ref().unwrap_or_else(|| panic!("{} is no __sym_ entry point", id.name()))
    }
}
