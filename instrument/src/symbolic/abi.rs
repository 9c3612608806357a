//! The `__sym_*` entry points of the runtime (`runtime/src/symabi.rs`,
//! `symptr.rs`, `symmodels.rs` and the other `sym*.rs` models) and their types. Shadows are `i32` expression ids, 0
//! meaning concrete; values travel as `i64`.

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::FunctionValue;
use inkwell::AddressSpace;

/// The entry points, declared in one module.
pub struct Abi<'ctx> {
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
    pub clone_of: FunctionValue<'ctx>,
    pub model_cmp: FunctionValue<'ctx>,
    pub model_strlen: FunctionValue<'ctx>,
    pub model_strcpy: FunctionValue<'ctx>,
    pub model_sprintf: FunctionValue<'ctx>,
    pub model_char: FunctionValue<'ctx>,
    pub model_strtol: FunctionValue<'ctx>,
    pub scanf_arg: FunctionValue<'ctx>,
    pub scanf_va: FunctionValue<'ctx>,
    pub model_sscanf: FunctionValue<'ctx>,
    pub model_fscanf: FunctionValue<'ctx>,
    pub model_strchr: FunctionValue<'ctx>,
    pub model_strspn: FunctionValue<'ctx>,
    pub model_strstr: FunctionValue<'ctx>,
    pub model_casecmp: FunctionValue<'ctx>,
    pub model_strtok_pre: FunctionValue<'ctx>,
    pub model_strtok: FunctionValue<'ctx>,
    pub model_getopt_pre: FunctionValue<'ctx>,
    pub model_getopt: FunctionValue<'ctx>,
    pub model_regex: FunctionValue<'ctx>,
    pub model_read: FunctionValue<'ctx>,
    pub model_fread: FunctionValue<'ctx>,
    pub model_fgets: FunctionValue<'ctx>,
    pub model_getline: FunctionValue<'ctx>,
    pub model_getc: FunctionValue<'ctx>,
}

impl<'ctx> Abi<'ctx> {
    pub fn declare(ctx: &'ctx Context, module: &Module<'ctx>) -> Abi<'ctx> {
        let (v, i32t, i64t, p) =
            (ctx.void_type(), ctx.i32_type(), ctx.i64_type(), ctx.ptr_type(AddressSpace::default()));
        let (i, l, q) = (i32t.into(), i64t.into(), p.into());
        let f = |name: &str, t| module.get_function(name).unwrap_or_else(|| module.add_function(name, t, None));
        Abi {
            binop: f("__sym_binop", i32t.fn_type(&[i, i, i, l, l, i], false)),
            cmp: f("__sym_cmp", i32t.fn_type(&[i, i, i, l, l, i], false)),
            cmp_ptr: f("__sym_cmp_ptr", i32t.fn_type(&[i, i, i, l, l], false)),
            cast: f("__sym_cast", i32t.fn_type(&[i, i, i], false)),
            select: f("__sym_select", i32t.fn_type(&[i, i, i, i, l, l, i], false)),
            gep: f("__sym_gep", i32t.fn_type(&[i, l, i, l, l, l], false)),
            load: f("__sym_load", i32t.fn_type(&[q, i], false)),
            load_indexed: f("__sym_load_indexed", i32t.fn_type(&[q, i, l, i, i], false)),
            store: f("__sym_store", v.fn_type(&[q, i, i], false)),
            memcpy: f("__sym_memcpy", v.fn_type(&[q, q, l], false)),
            memset: f("__sym_memset", v.fn_type(&[q, i, l], false)),
            clear: f("__sym_clear", v.fn_type(&[q, l], false)),
            set_param: f("__sym_set_param", v.fn_type(&[i, i], false)),
            get_param: f("__sym_get_param", i32t.fn_type(&[i], false)),
            set_ret: f("__sym_set_ret", v.fn_type(&[i], false)),
            get_ret: f("__sym_get_ret", i32t.fn_type(&[], false)),
            branch: f("__sym_branch", v.fn_type(&[i, i, i, q, i, i], false)),
            switch: f("__sym_switch", v.fn_type(&[i, i, l, q, i, q, q], false)),
            pin: f("__sym_pin", v.fn_type(&[i, l, q], false)),
            check_div: f("__sym_check_div", v.fn_type(&[i, i, i, i, l, l, i], false)),
            clone_of: f("__sym_clone_of", p.fn_type(&[q], false)),
            model_cmp: f("__sym_model_cmp", i32t.fn_type(&[q, q, l, i], false)),
            model_strlen: f("__sym_model_strlen", i32t.fn_type(&[q, l], false)),
            model_strcpy: f("__sym_model_strcpy", v.fn_type(&[q, q], false)),
            model_sprintf: f("__sym_model_sprintf", v.fn_type(&[q, l, q, q, l], false)),
            model_char: f("__sym_model_char", i32t.fn_type(&[i, i], false)),
            model_strtol: f("__sym_model_strtol", i32t.fn_type(&[q, q, l, i, i, i], false)),
            scanf_arg: f("__sym_scanf_arg", v.fn_type(&[i, q], false)),
            scanf_va: f("__sym_scanf_va", v.fn_type(&[q], false)),
            model_sscanf: f("__sym_model_sscanf", i32t.fn_type(&[i, q, q, l, i], false)),
            model_fscanf: f("__sym_model_fscanf", v.fn_type(&[q, l, i], false)),
            model_strchr: f("__sym_model_strchr", i32t.fn_type(&[i, q, i, l, i, l, q, i], false)),
            model_strspn: f("__sym_model_strspn", i32t.fn_type(&[i, q, i, q, l, i], false)),
            model_strstr: f("__sym_model_strstr", i32t.fn_type(&[q, i, q, q, i], false)),
            model_casecmp: f("__sym_model_casecmp", i32t.fn_type(&[q, q, l], false)),
            model_strtok_pre: f("__sym_model_strtok_pre", v.fn_type(&[i, q, q, q], false)),
            model_strtok: f("__sym_model_strtok", v.fn_type(&[i, q, q, q, i], false)),
            model_getopt_pre: f("__sym_model_getopt_pre", v.fn_type(&[i, q], false)),
            model_getopt: f("__sym_model_getopt", i32t.fn_type(&[q, q, l], false)),
            model_regex: f("__sym_model_regex", v.fn_type(&[i, q, l, l, i], false)),
            model_read: f("__sym_model_read", v.fn_type(&[i, q, l], false)),
            model_fread: f("__sym_model_fread", v.fn_type(&[q, l, l, q], false)),
            model_fgets: f("__sym_model_fgets", v.fn_type(&[q, q, q], false)),
            model_getline: f("__sym_model_getline", v.fn_type(&[q, l, q], false)),
            model_getc: f("__sym_model_getc", i32t.fn_type(&[q, l, i], false)),
        }
    }
}
