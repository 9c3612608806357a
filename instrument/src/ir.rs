//! Small IR helpers shared by the probe modules.

use inkwell::basic_block::BasicBlock;
use inkwell::values::{FunctionValue, InstructionOpcode, InstructionValue};

/// Instructions of `bb` in order (collected first, so the caller may insert).
pub fn instructions<'ctx>(bb: BasicBlock<'ctx>) -> Vec<InstructionValue<'ctx>> {
    let mut out = Vec::new();
    let mut cur = bb.get_first_instruction();
    while let Some(i) = cur {
        out.push(i);
        cur = i.get_next_instruction();
    }
    out
}

/// First instruction of `bb` that is neither a PHI nor a landing pad: where
/// a probe at block entry goes.
pub fn first_insertion_point(bb: BasicBlock<'_>) -> Option<InstructionValue<'_>> {
    instructions(bb)
        .into_iter()
        .find(|i| !matches!(i.get_opcode(), InstructionOpcode::Phi | InstructionOpcode::LandingPad))
}

/// Whether `f` has a body this module emits (declarations and
/// `available_externally` copies are left alone, as is our own code).
pub fn is_instrumentable(f: FunctionValue<'_>) -> bool {
    use inkwell::module::Linkage;
    f.count_basic_blocks() > 0
        && f.get_linkage() != Linkage::AvailableExternally
        && !f.get_name().to_bytes().starts_with(crate::abi::PREFIX.as_bytes())
}
