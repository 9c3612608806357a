//! Edge coverage: a hit counter for every function entry and every outcome
//! of a conditional branch or switch.
//!
//! Ids are local to the module: `0..functions` for the entries of the
//! functions in module order, then the branch outcomes function by function
//! (stable for the same bitcode); the runtime places each
//! module's range in the map when the module registers, so ids of different
//! translation units never collide while the program has fewer than
//! `MAP_SIZE` edges. Each distinct outgoing edge of a conditional branch or
//! switch has its counter on the edge: in the successor when the edge is
//! its only way in, else in a small block split into the edge. A taken edge
//! costs one increment (`incb off(%reg)`); an edge not taken costs nothing.

use crate::{attrs, ir, Error, Stats};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::llvm_sys::core as llvm;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::values::{AsValueRef, FunctionValue, GlobalValue, InstructionOpcode, InstructionValue, IntValue};
use model::MAP_SIZE;

/// Metadata on a counted branch or switch: its successors' counter ids
/// (module-local), in successor order.
pub const SLOTS_KIND: &str = "carve.slots";

/// The branches to count, collected before other probes add blocks of
/// their own (those are never counted).
pub struct Plan<'ctx> {
    terminators: Vec<Vec<InstructionValue<'ctx>>>,
}

pub fn plan<'ctx>(funcs: &[FunctionValue<'ctx>]) -> Plan<'ctx> {
    let terminators = funcs
        .iter()
        .map(|f| {
            f.get_basic_blocks()
                .iter()
                .filter_map(|bb| bb.get_terminator())
                .filter(|t| matches!(t.get_opcode(), InstructionOpcode::Br | InstructionOpcode::Switch))
                .collect()
        })
        .collect();
    Plan { terminators }
}

/// Adds the counters to `funcs` (the module's instrumentable functions, in
/// id order) for the branches of `plan`.
pub fn instrument<'ctx>(
    ctx: &'ctx Context,
    area: GlobalValue<'ctx>,
    funcs: &[FunctionValue<'ctx>],
    plan: Plan<'ctx>,
) -> Result<Stats, Error> {
    // Layout of the module's ids: function entries first, then branch
    // outcomes, so the runtime can tell the client which are which.
    let entries = funcs.len() as u64;
    let mut probe = Probe { ctx, builder: ctx.create_builder(), area, base: None, next_id: entries, branches: 0 };
    let mut function_branches = Vec::with_capacity(funcs.len());
    for ((k, f), terminators) in funcs.iter().enumerate().zip(plan.terminators) {
        attrs::strip_memory_promises(*f);
        let first = probe.next_id as u32;
        let Some(at) = f.get_first_basic_block().and_then(ir::first_insertion_point) else {
            function_branches.push((first, 0));
            continue;
        };
        // The map pointer is loaded once, at entry, and kept for the whole
        // call: a reload per counter would be needed otherwise, since a byte
        // store may alias the pointer as far as LLVM knows.
        probe.builder.position_before(&at);
        probe.base = None;
        let base = probe.builder.build_load(ctx.ptr_type(Default::default()), area.as_pointer_value(), "carve.area")?;
        probe.base = Some(base.into_pointer_value());
        probe.count(ctx.i64_type().const_int(k as u64 % MAP_SIZE as u64, false))?;
        for term in terminators {
            match term.get_opcode() {
                InstructionOpcode::Br if term.get_num_operands() == 3 => probe.branch(term)?,
                InstructionOpcode::Switch => probe.branch(term)?,
                _ => {}
            }
        }
        function_branches.push((first, probe.next_id as u32 - first));
    }
    Ok(Stats {
        functions: entries as u32,
        edges: probe.next_id as u32,
        branches: probe.branches,
        has_main: false,
        function_branches,
    })
}

struct Probe<'ctx> {
    ctx: &'ctx Context,
    builder: Builder<'ctx>,
    area: GlobalValue<'ctx>,
    /// This function's map pointer, loaded at its entry.
    base: Option<inkwell::values::PointerValue<'ctx>>,
    next_id: u64,
    branches: u32,
}

impl<'ctx> Probe<'ctx> {
    /// Reserves `n` consecutive ids; returns the first (wrapped into the map).
    fn fresh(&mut self, n: u64) -> u64 {
        let id = self.next_id;
        self.next_id += n;
        id % MAP_SIZE as u64
    }

    /// `area[idx] += 1` at the builder's position.
    fn count(&self, idx: IntValue<'ctx>) -> Result<(), Error> {
        let i8t = self.ctx.i8_type();
        let base = match self.base {
            Some(b) => b,
            None => {
                let ptr_t = self.ctx.ptr_type(Default::default());
                self.builder.build_load(ptr_t, self.area.as_pointer_value(), "carve.area")?.into_pointer_value()
            }
        };
        // SAFETY: idx < MAP_SIZE and the area holds MAP_SIZE bytes past any base.
        let slot = unsafe { self.builder.build_in_bounds_gep(i8t, base, &[idx], "carve.slot")? };
        let old = self.builder.build_load(i8t, slot, "carve.hits")?.into_int_value();
        let new = self.builder.build_int_add(old, i8t.const_int(1, false), "carve.inc")?;
        self.builder.build_store(slot, new)?;
        Ok(())
    }

    /// Conditional branches and switches alike: one counter per distinct
    /// outgoing edge, placed on the edge itself (see [`Probe::count_edge`]).
    fn branch(&mut self, term: InstructionValue<'ctx>) -> Result<(), Error> {
        let bb = term.get_parent().expect("a terminator in a block");
        let raw = term.as_value_ref();
        // SAFETY: `raw` is a live terminator of this module.
        let n = unsafe { llvm::LLVMGetNumSuccessors(raw) };
        let succ = |i| unsafe { BasicBlock::new(llvm::LLVMGetSuccessor(raw, i)).expect("successor") };
        let mut dests: Vec<BasicBlock<'ctx>> = Vec::new();
        for i in 0..n {
            if !dests.contains(&succ(i)) {
                dests.push(succ(i));
            }
        }
        if dests.len() < 2 {
            return Ok(());
        }
        let mut ids = vec![0; n as usize];
        for dest in dests {
            let id = self.fresh(1);
            self.branches += 1;
            let slots: Vec<u32> = (0..n).filter(|&j| succ(j) == dest).collect();
            for &j in &slots {
                ids[j as usize] = id;
            }
            self.count_edge(bb, raw, &slots, dest, id)?;
        }
        // Each successor's counter, for the symbolic clone's branch probes.
        let i32t = self.ctx.i32_type();
        let node: Vec<_> = ids.iter().map(|&id| i32t.const_int(id, false).into()).collect();
        let kind = self.ctx.get_kind_id(SLOTS_KIND);
        term.set_metadata(self.ctx.metadata_node(&node), kind).map_err(|e| Error::Verify(e.to_string()))?;
        Ok(())
    }

    /// Counts the edge `from -> dest` (successor slots `slots` of `from`'s
    /// terminator): in `dest` itself when that edge is its only way in, else
    /// in a new block on the edge. One increment per edge taken, nothing on
    /// the edges not taken.
    fn count_edge(
        &mut self,
        from: BasicBlock<'ctx>,
        term: LLVMValueRef,
        slots: &[u32],
        dest: BasicBlock<'ctx>,
        id: u64,
    ) -> Result<(), Error> {
        let idx = self.ctx.i64_type().const_int(id, false);
        if slots.len() == 1 && single_entry(dest) {
            if let Some(at) = ir::first_insertion_point(dest) {
                self.builder.position_before(&at);
                return self.count(idx);
            }
        }
        let edge = self.ctx.insert_basic_block_after(from, "carve.edge");
        self.builder.position_at_end(edge);
        self.count(idx)?;
        self.builder.build_unconditional_branch(dest)?;
        for &j in slots {
            // SAFETY: j is a successor slot of the live terminator.
            unsafe { llvm::LLVMSetSuccessor(term, j, edge.as_mut_ptr()) };
        }
        ir::retarget_phis(dest, from, edge, true);
        Ok(())
    }
}

/// Whether exactly one terminator slot leads into `bb` (no other edge, no
/// `blockaddress`): PHIs' incoming blocks are not uses, terminators' are.
fn single_entry(bb: BasicBlock<'_>) -> bool {
    // SAFETY: walking the use list of a live block.
    unsafe {
        let v = llvm::LLVMBasicBlockAsValue(bb.as_mut_ptr());
        let first = llvm::LLVMGetFirstUse(v);
        !first.is_null() && llvm::LLVMGetNextUse(first).is_null()
    }
}
