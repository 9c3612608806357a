//! Edge coverage: a hit counter for every function entry and every outcome
//! of a conditional branch or switch.
//!
//! Ids are local to the module: `0..functions` for the entries of the
//! source functions (their [`preserve::source_index`]; functions without one,
//! such as those of a module built without the out-of-line copies, follow in
//! module order), then the edges only the out-of-line copies count, then
//! the branch outcomes grouped by source function (stable for the same
//! bitcode). Every copy of a source edge shares its
//! counter: the branch's `carve.src` tag and the successor (the operand
//! index of a `br`, the case value of a `switch`) name it, so a function
//! inlined into its callers and its out-of-line copy count in the same slots,
//! and unit runs compare with system runs. Branches the optimiser made get
//! counters of their own, under the function they are in. The runtime
//! places each module's range in the map when the module registers, so ids
//! of different translation units never collide while the program has fewer
//! than `MAP_SIZE` edges. Each distinct outgoing edge of a conditional branch
//! or switch has its counter on the edge: in the successor when the edge is
//! its only way in, else in a small block split into the edge. A taken edge
//! costs one increment (`incb off(%reg)`); an edge not taken costs nothing.
//! A `select` on a condition the program computes is a branch the
//! optimiser folded (`if (c) return 1; else return -1;`, one side of a
//! `||`): each of its two outcomes gets a counter too, as AFL++ counts
//! them, incremented through a second `select` of the two counter ids
//! (marked [`PROBE_KIND`]: no outcome of its own, no symbolic value).
//! A select on the condition of a source branch (`preserve::COND_KIND`)
//! counts in that branch's slots, so the program and its out-of-line
//! copies share them; other selects get counters of their own.
//! Sanitizers' checks are not counted: UBSan's are marked `nosanitize`
//! (or, once the optimiser rewrote them, lead to a report handler), and
//! in a function ASan (MSan, TSan) instruments, only branches with a
//! source tag are counted (its checks come after the front end), and
//! only selects on a source branch's condition.

use crate::{attrs, ir, preserve, Error, Stats};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::llvm_sys::core as llvm;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::values::{
    AsValueRef, BasicValue, FunctionValue, GlobalValue, InstructionOpcode, InstructionValue, IntValue,
};
use model::MAP_SIZE;
use std::collections::BTreeMap;

/// Metadata on a counted branch or switch: its successors' counter ids
/// (module-local), in successor order.
pub const SLOTS_KIND: &str = "carve.slots";

/// Metadata on the `select` that picks a select's counter: a probe's own
/// instruction, which the symbolic clone leaves concrete.
pub const PROBE_KIND: &str = "carve.probe";

/// A source edge: `(function id, branch, successor kind, value)`; kinds:
/// 0 `br` operand, 1 `switch` default, 2 `switch` case, 3 an edge the
/// optimiser made or a select's outcome (value: a running count).
type Key = (u32, u32, u8, u64);

/// A terminator with each successor's counter (`None`: not counted), or
/// a select with its outcomes' (true, then false).
type Counted<'ctx> = (InstructionValue<'ctx>, Vec<Option<u32>>);

/// Where the counters go, worked out before other probes add blocks of
/// their own (those are never counted).
pub struct Plan<'ctx> {
    /// Counted functions with their function ids and terminators.
    funcs: Vec<(FunctionValue<'ctx>, u32, Vec<Counted<'ctx>>)>,
    /// Function ids (entries), the copies' own edges, then branch
    /// outcomes (from `first_branch` on).
    ids: u32,
    entries: u32,
    first_branch: u32,
    function_branches: Vec<(u32, u32)>,
}

impl<'ctx> Plan<'ctx> {
    /// Each counted function with its function id, in the order [`plan`]
    /// was given them.
    pub fn function_ids(&self) -> impl Iterator<Item = (FunctionValue<'ctx>, u32)> + '_ {
        self.funcs.iter().map(|(f, id, _)| (*f, *id))
    }

    /// How many function ids there are.
    pub fn entries(&self) -> u32 {
        self.entries
    }
}

pub fn plan<'ctx>(ctx: &'ctx Context, funcs: &[FunctionValue<'ctx>]) -> Plan<'ctx> {
    let sources = funcs.iter().filter_map(|f| preserve::source_index(*f)).max().map_or(0, |m| m + 1);
    let mut extra = sources;
    let ids: Vec<u32> = funcs
        .iter()
        .map(|f| {
            preserve::source_index(*f).unwrap_or_else(|| {
                extra += 1;
                extra - 1
            })
        })
        .collect();
    let entries = extra;
    let tag_kind = ctx.get_kind_id(preserve::BRANCH_KIND);
    let cond_kind = ctx.get_kind_id(preserve::COND_KIND);
    let mut made: BTreeMap<u32, u64> = BTreeMap::new();
    // Each terminator with the key of each successor's edge: the least key
    // among the successors that lead to the same block.
    let mut keyed = Vec::with_capacity(funcs.len());
    for (f, &fid) in funcs.iter().zip(&ids) {
        let mut terms = Vec::new();
        // In a sanitized function, a branch without a source tag is most
        // likely a sanitizer's check: only source branches are counted.
        let sanitized = ir::is_sanitized(*f);
        for bb in f.get_basic_blocks() {
            let Some(t) = bb.get_terminator() else { continue };
            if !ir::is_counted_branch(t) {
                continue;
            }
            let tag = source_tag(t, tag_kind);
            if tag.is_none() && (sanitized || ir::leads_to_report(t)) {
                continue;
            }
            let keys = successor_keys(t, tag, fid, &mut made);
            terms.push((t, keys));
        }
        let selects = f.get_basic_blocks().into_iter().flat_map(|bb| bb.get_instructions());
        for i in selects.filter(|&i| is_counted_select(i)) {
            if let Some(keys) = select_keys(i, cond_kind, sanitized, fid, &mut made) {
                terms.push((i, keys));
            }
        }
        keyed.push(terms);
    }
    // Edges only out-of-line copies count (the program lost the branch, or
    // never had it) come right after the entries, outside the branch
    // outcomes the module declares: no system run can cover them, so
    // neither the campaign's ranking nor its lifting counts them.
    let copy: Vec<bool> = funcs.iter().map(|f| preserve::is_copy(*f)).collect();
    let program: std::collections::BTreeSet<Key> = keyed
        .iter()
        .zip(&copy)
        .filter(|(_, &c)| !c)
        .flat_map(|(terms, _)| terms.iter().flat_map(|(_, ks)| ks.iter().flatten().copied()))
        .collect();
    let mut used: Vec<Key> = keyed.iter().flatten().flat_map(|(_, ks)| ks.iter().flatten().copied()).collect();
    used.sort_unstable();
    used.dedup();
    let (mut only_copies, branches): (Vec<Key>, Vec<Key>) =
        used.into_iter().partition(|k| copy.iter().any(|&c| c) && !program.contains(k));
    only_copies.sort_unstable();
    let first = entries + only_copies.len() as u32;
    let slot: BTreeMap<Key, u32> = only_copies
        .iter()
        .enumerate()
        .map(|(i, k)| (*k, entries + i as u32))
        .chain(branches.iter().enumerate().map(|(i, k)| (*k, first + i as u32)))
        .collect();
    let mut function_branches = vec![(first + branches.len() as u32, 0u32); entries as usize];
    for (i, k) in branches.iter().enumerate().rev() {
        let fb = &mut function_branches[k.0 as usize];
        *fb = (first + i as u32, fb.1 + 1);
    }
    let funcs = funcs
        .iter()
        .zip(ids)
        .zip(keyed)
        .map(|((f, id), terms)| {
            let terms =
                terms.into_iter().map(|(t, ks)| (t, ks.iter().map(|k| k.map(|k| slot[&k])).collect())).collect();
            (*f, id, terms)
        })
        .collect();
    Plan { funcs, ids: first + branches.len() as u32, entries, first_branch: first, function_branches }
}

/// The `carve.src` tag of a terminator (`carve.cond` of a condition):
/// `(function, branch)`.
fn source_tag(t: InstructionValue<'_>, kind: u32) -> Option<(u32, u32)> {
    let md = t.get_metadata(kind)?;
    let ops = md.get_node_values()?;
    let num = |k: usize| {
        ops.get(k).filter(|v| v.is_int_value()).and_then(|v| v.into_int_value().get_zero_extended_constant())
    };
    Some((num(0)? as u32, num(1)? as u32))
}

/// The key of each successor slot of `t` (`None` for all when fewer than
/// two distinct blocks follow it).
fn successor_keys(
    t: InstructionValue<'_>,
    tag: Option<(u32, u32)>,
    fid: u32,
    made: &mut BTreeMap<u32, u64>,
) -> Vec<Option<Key>> {
    let raw = t.as_value_ref();
    // SAFETY: `raw` is a live terminator.
    let n = unsafe { llvm::LLVMGetNumSuccessors(raw) };
    let succ = |i| unsafe { llvm::LLVMGetSuccessor(raw, i) };
    let is_switch = t.get_opcode() == InstructionOpcode::Switch;
    let mut keys: Vec<Key> = (0..n)
        .map(|i| match tag {
            Some((func, branch)) if !is_switch => (func, branch, 0, u64::from(i)),
            Some((func, branch)) if i == 0 => (func, branch, 1, 0),
            Some((func, branch)) => (func, branch, 2, case_value(raw, i)),
            None => made_key(made, fid),
        })
        .collect();
    for i in 0..n as usize {
        let least = (0..n as usize).filter(|&j| succ(j as u32) == succ(i as u32)).map(|j| keys[j]).min();
        keys[i] = least.expect("i itself");
    }
    let mut dests: Vec<LLVMValueRef> = (0..n).map(|i| succ(i) as LLVMValueRef).collect();
    dests.sort_unstable();
    dests.dedup();
    if dests.len() < 2 {
        return vec![None; n as usize];
    }
    keys.into_iter().map(Some).collect()
}

/// Whether `i` is a select worth two counters: on a condition the
/// program computes (one `i1`, no constant), between two different values.
fn is_counted_select(i: InstructionValue<'_>) -> bool {
    if i.get_opcode() != InstructionOpcode::Select || ir::has_metadata(i, "nosanitize") {
        return false;
    }
    let op = |k| i.get_operand(k).and_then(|o| o.value());
    let (Some(c), Some(t), Some(f)) = (op(0), op(1), op(2)) else { return false };
    let one_bit = c.is_int_value() && c.into_int_value().get_type().get_bit_width() == 1;
    one_bit && !c.into_int_value().is_const() && t != f
}

/// The keys of select `i`'s outcomes (true, then false): those of the
/// source branch whose condition it selects on (its `carve.cond` tag: the
/// branch the optimiser folded into it, whose slots the out-of-line copy
/// counts in too), else two of the function's own. In a sanitized
/// function, only a select with a tag is counted (MSan's shadow
/// propagation makes selects of its own).
fn select_keys(
    i: InstructionValue<'_>,
    cond_kind: u32,
    sanitized: bool,
    fid: u32,
    made: &mut BTreeMap<u32, u64>,
) -> Option<Vec<Option<Key>>> {
    let cond = i.get_operand(0).and_then(|o| o.value()).and_then(|c| c.as_instruction_value());
    if let Some((func, branch)) = cond.and_then(|c| source_tag(c, cond_kind)) {
        return Some(vec![Some((func, branch, 0, 0)), Some((func, branch, 0, 1))]);
    }
    if sanitized {
        return None;
    }
    Some(vec![Some(made_key(made, fid)), Some(made_key(made, fid))])
}

/// The next key of an edge the optimiser made in function `fid`.
fn made_key(made: &mut BTreeMap<u32, u64>, fid: u32) -> Key {
    let c = made.entry(fid).or_insert(0);
    *c += 1;
    (fid, u32::MAX, 3, *c)
}

/// The value of a switch's `i`-th successor's case (`i >= 1`).
fn case_value(switch: LLVMValueRef, i: u32) -> u64 {
    // SAFETY: operands of a switch: condition, default, then (value, dest)
    // pairs; successor i >= 1 is case i - 1.
    unsafe {
        let v = llvm::LLVMGetOperand(switch, 2 * i);
        if v.is_null() || llvm::LLVMIsAConstantInt(v).is_null() {
            return u64::from(i);
        }
        llvm::LLVMConstIntGetZExtValue(v)
    }
}

/// Adds the counters of `plan`.
pub fn instrument<'ctx>(ctx: &'ctx Context, area: GlobalValue<'ctx>, plan: Plan<'ctx>) -> Result<Stats, Error> {
    let mut probe = Probe { ctx, builder: ctx.create_builder(), area, base: None };
    for (f, fid, terminators) in plan.funcs {
        attrs::strip_memory_promises(f);
        let Some(at) = f.get_first_basic_block().and_then(ir::first_insertion_point) else {
            continue;
        };
        // The map pointer is loaded once, at entry, and kept for the whole
        // call: a reload per counter would be needed otherwise, since a byte
        // store may alias the pointer as far as LLVM knows.
        probe.builder.position_before(&at);
        probe.base = None;
        let base = probe.builder.build_load(ctx.ptr_type(Default::default()), area.as_pointer_value(), "carve.area")?;
        probe.base = Some(base.into_pointer_value());
        probe.count(slot(ctx, fid))?;
        for (term, ids) in terminators {
            match term.get_opcode() {
                InstructionOpcode::Select => probe.select(term, &ids)?,
                _ => probe.branch(term, &ids)?,
            }
        }
    }
    Ok(Stats {
        functions: plan.entries,
        edges: plan.ids,
        branches: plan.ids - plan.first_branch,
        has_main: false,
        function_branches: plan.function_branches,
    })
}

/// A counter id as an index into the map.
fn slot(ctx: &Context, id: u32) -> IntValue<'_> {
    ctx.i64_type().const_int(u64::from(id) % MAP_SIZE as u64, false)
}

struct Probe<'ctx> {
    ctx: &'ctx Context,
    builder: Builder<'ctx>,
    area: GlobalValue<'ctx>,
    /// This function's map pointer, loaded at its entry.
    base: Option<inkwell::values::PointerValue<'ctx>>,
}

impl<'ctx> Probe<'ctx> {
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
    /// outgoing edge (`ids`: each successor's), placed on the edge itself
    /// (see [`Probe::count_edge`]).
    fn branch(&mut self, term: InstructionValue<'ctx>, ids: &[Option<u32>]) -> Result<(), Error> {
        let bb = term.get_parent().expect("a terminator in a block");
        let raw = term.as_value_ref();
        // SAFETY: `raw` is a live terminator of this module.
        let n = unsafe { llvm::LLVMGetNumSuccessors(raw) };
        let succ = |i| unsafe { BasicBlock::new(llvm::LLVMGetSuccessor(raw, i)).expect("successor") };
        if ids.len() != n as usize || ids.iter().any(Option::is_none) {
            return Ok(());
        }
        let mut dests: Vec<BasicBlock<'ctx>> = Vec::new();
        for i in 0..n {
            if !dests.contains(&succ(i)) {
                dests.push(succ(i));
            }
        }
        for dest in dests {
            let slots: Vec<u32> = (0..n).filter(|&j| succ(j) == dest).collect();
            let id = ids[slots[0] as usize].expect("checked above");
            self.count_edge(bb, raw, &slots, dest, id)?;
        }
        let ids: Vec<u32> = ids.iter().map(|id| id.expect("checked")).collect();
        self.mark_slots(term, &ids)
    }

    /// Each outcome's counter on `inst`, for the symbolic clone's branch
    /// probes (`SLOTS_KIND`).
    fn mark_slots(&self, inst: InstructionValue<'ctx>, ids: &[u32]) -> Result<(), Error> {
        let i32t = self.ctx.i32_type();
        let node: Vec<_> =
            ids.iter().map(|&id| i32t.const_int(u64::from(id) % MAP_SIZE as u64, false).into()).collect();
        let kind = self.ctx.get_kind_id(SLOTS_KIND);
        inst.set_metadata(self.ctx.metadata_node(&node), kind).map_err(|e| Error::Verify(e.to_string()))
    }

    /// A select's outcomes (`ids`: true, then false): the counter of the
    /// one it takes, picked by a select on the same condition.
    fn select(&mut self, sel: InstructionValue<'ctx>, ids: &[Option<u32>]) -> Result<(), Error> {
        let (&[Some(if_true), Some(if_false)], Some(c)) = (ids, sel.get_operand(0).and_then(|o| o.value())) else {
            return Ok(());
        };
        self.builder.position_before(&sel);
        let (t, f) = (slot(self.ctx, if_true), slot(self.ctx, if_false));
        let which = self.builder.build_select(c.into_int_value(), t, f, "carve.which")?;
        let mark = self.ctx.metadata_node(&[]);
        let probe = self.ctx.get_kind_id(PROBE_KIND);
        if let Some(which) = which.into_int_value().as_instruction() {
            which.set_metadata(mark, probe).map_err(|e| Error::Verify(e.to_string()))?;
        }
        self.count(which.into_int_value())?;
        self.mark_slots(sel, &[if_true, if_false])
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
        id: u32,
    ) -> Result<(), Error> {
        let idx = slot(self.ctx, id);
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
