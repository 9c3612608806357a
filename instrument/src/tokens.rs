//! The program's dictionary: the constants its code compares values
//! with, as byte strings a system-level mutator can insert into a test.
//!
//! A command character a parser switches on (dc's `_`, which starts a
//! negative number), a keyword passed to `strcmp`, a magic number compared
//! as a whole word: a random byte or a textual mutation finds each of them
//! seldom, and a test that has one reaches the code behind it. The pass
//! collects them from the module as it is, before any probe adds its own
//! comparisons, and its constructor hands them to the runtime, which lists
//! them with the functions (`CARVE_LIST`). Which constants the input is
//! actually compared with is not known here: the dictionary is every
//! candidate, and the campaign's feedback judges the mutator that uses it.
//!
//! Taken:
//! - the case values of a `switch` and the constant of an `icmp eq`/`ne`
//!   (see [`int_token`] for how a value becomes bytes);
//! - the constant string given to a comparison of libc (`strcmp`,
//!   `memcmp`, `strstr`, ...), whole or up to a constant length.

use inkwell::llvm_sys::core as llvm;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use inkwell::values::{AsValueRef, FunctionValue};
use std::collections::BTreeSet;

/// Most tokens one module contributes.
pub const MAX_TOKENS: usize = 1024;
/// Longest token kept (longer strings are cut).
pub const MAX_TOKEN_LEN: usize = 32;

/// A comparison of libc: its name, which arguments may be the constant
/// compared with, which argument bounds its length (if any), and whether
/// it compares C strings (ends at a NUL) or bytes.
struct Comparison {
    name: &'static str,
    strings: &'static [u32],
    bound: Option<u32>,
    c_string: bool,
}

const fn cmp(name: &'static str, strings: &'static [u32], bound: Option<u32>, c_string: bool) -> Comparison {
    Comparison { name, strings, bound, c_string }
}

const STRING_COMPARISONS: &[Comparison] = &[
    cmp("strcmp", &[0, 1], None, true),
    cmp("strcasecmp", &[0, 1], None, true),
    cmp("strncmp", &[0, 1], Some(2), true),
    cmp("strncasecmp", &[0, 1], Some(2), true),
    cmp("strstr", &[1], None, true),
    cmp("strcasestr", &[1], None, true),
    cmp("memcmp", &[0, 1], Some(2), false),
    cmp("bcmp", &[0, 1], Some(2), false),
    cmp("memmem", &[2], Some(3), false),
];

/// The bytes a comparison with the constant `value` of a `width`-bit
/// integer stands for in an input: one byte for a value below 256 (a
/// character, however wide the variable that holds it), else the value's
/// little-endian bytes in the smallest of 2, 4 or 8 that hold it.
/// Small negative values (`EOF`, error codes) are none.
pub fn int_token(value: u64, width: u32) -> Option<Vec<u8>> {
    if width == 0 || width > 64 || width == 1 {
        return None;
    }
    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    let v = value & mask;
    let sign_bit = 1u64 << (width - 1);
    let negative_small = width > 8 && v & sign_bit != 0 && (mask - v) < 256;
    if negative_small {
        return None;
    }
    if v < 256 {
        return Some(vec![v as u8]);
    }
    let n = [2usize, 4, 8].into_iter().find(|&n| n * 8 >= 64 || v < 1u64 << (n * 8)).unwrap_or(8);
    Some(v.to_le_bytes()[..n].to_vec())
}

/// Every token of the module's defined functions (`funcs`), at most
/// [`MAX_TOKENS`], in a stable order: every single byte first (at most
/// 256), then the strings compared with, then wider integers, so that a
/// large module's cap cuts the least telling ones.
pub fn collect(funcs: &[FunctionValue<'_>]) -> Vec<Vec<u8>> {
    let mut set = BTreeSet::new();
    for f in funcs {
        for bb in f.get_basic_blocks() {
            for i in crate::ir::instructions(bb) {
                // SAFETY: `i` is a live instruction of the module.
                unsafe { of_instruction(i.as_value_ref(), &mut set) };
            }
        }
    }
    let mut out: Vec<(u8, Vec<u8>)> = set.into_iter().collect();
    out.sort_by_key(|(kind, t)| (t.len() > 1, *kind, t.len()));
    out.into_iter().map(|(_, t)| t).take(MAX_TOKENS).collect()
}

/// What a token came from, for the cap's order.
const FROM_STRING: u8 = 0;
const FROM_INTEGER: u8 = 1;

/// The tokens of one instruction into `set`.
///
/// # Safety
/// `i` is a live instruction.
unsafe fn of_instruction(i: LLVMValueRef, set: &mut BTreeSet<(u8, Vec<u8>)>) {
    match llvm::LLVMGetInstructionOpcode(i) {
        LLVMOpcode::LLVMICmp => {
            let p = llvm::LLVMGetICmpPredicate(i);
            if matches!(p, LLVMIntPredicate::LLVMIntEQ | LLVMIntPredicate::LLVMIntNE) {
                for k in 0..2 {
                    set.extend(int_constant(llvm::LLVMGetOperand(i, k)).map(|t| (FROM_INTEGER, t)));
                }
            }
        }
        LLVMOpcode::LLVMSwitch => {
            // Operands: condition, default, then (value, destination) pairs.
            let n = llvm::LLVMGetNumOperands(i) as u32;
            for k in (2..n).step_by(2) {
                set.extend(int_constant(llvm::LLVMGetOperand(i, k)).map(|t| (FROM_INTEGER, t)));
            }
        }
        LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke => {
            if let Some(t) = compared_string(i) {
                // The optimiser turns `strcmp(s, "lit")` into a `bcmp` of
                // the literal and its NUL: as text, the input holds the
                // literal alone.
                if let [text @ .., 0] = &t[..] {
                    if !text.is_empty() && !text.contains(&0) {
                        set.insert((FROM_STRING, text.to_vec()));
                    }
                }
                set.insert((FROM_STRING, t));
            }
        }
        _ => {}
    }
}

/// [`int_token`] of `v` when it is a constant integer.
unsafe fn int_constant(v: LLVMValueRef) -> Option<Vec<u8>> {
    if v.is_null() || llvm::LLVMIsAConstantInt(v).is_null() {
        return None;
    }
    let width = llvm::LLVMGetIntTypeWidth(llvm::LLVMTypeOf(v));
    if width > 64 {
        return None;
    }
    int_token(llvm::LLVMConstIntGetZExtValue(v), width)
}

/// The constant a call of one of [`STRING_COMPARISONS`] compares with:
/// cut at its NUL (C strings), at the call's constant length and at
/// [`MAX_TOKEN_LEN`].
unsafe fn compared_string(call: LLVMValueRef) -> Option<Vec<u8>> {
    let callee = llvm::LLVMGetCalledValue(call);
    if callee.is_null() || llvm::LLVMIsAFunction(callee).is_null() {
        return None;
    }
    let mut len = 0usize;
    let name = llvm::LLVMGetValueName2(callee, &mut len);
    let name = std::slice::from_raw_parts(name as *const u8, len);
    let c = STRING_COMPARISONS.iter().find(|c| c.name.as_bytes() == name)?;
    let args = llvm::LLVMGetNumArgOperands(call);
    let limit = match c.bound {
        Some(k) if k < args => {
            let n = llvm::LLVMGetOperand(call, k);
            if llvm::LLVMIsAConstantInt(n).is_null() || llvm::LLVMGetIntTypeWidth(llvm::LLVMTypeOf(n)) > 64 {
                MAX_TOKEN_LEN
            } else {
                (llvm::LLVMConstIntGetZExtValue(n) as usize).min(MAX_TOKEN_LEN)
            }
        }
        _ => MAX_TOKEN_LEN,
    };
    c.strings.iter().filter(|&&k| k < args).find_map(|&k| {
        let s = constant_string(llvm::LLVMGetOperand(call, k))?;
        let s = if c.c_string { s.split(|&b| b == 0).next().unwrap_or_default() } else { &s[..] };
        let s = &s[..s.len().min(limit)];
        (!s.is_empty()).then(|| s.to_vec())
    })
}

/// The bytes of the constant array `p` points at (a global's start, or a
/// constant address zero bytes into one).
unsafe fn constant_string(mut p: LLVMValueRef) -> Option<Vec<u8>> {
    for _ in 0..4 {
        if p.is_null() {
            return None;
        }
        if !llvm::LLVMIsAGlobalVariable(p).is_null() {
            let init = llvm::LLVMGetInitializer(p);
            // Only a ConstantDataSequential has bytes to give (a
            // zeroinitializer, `""` or an array of zeros, is none).
            if init.is_null()
                || llvm::LLVMIsGlobalConstant(p) == 0
                || llvm::LLVMIsAConstantDataSequential(init).is_null()
                || llvm::LLVMIsConstantString(init) == 0
            {
                return None;
            }
            let mut len = 0usize;
            let s = llvm::LLVMGetAsString(init, &mut len);
            return Some(std::slice::from_raw_parts(s as *const u8, len).to_vec());
        }
        if llvm::LLVMIsAConstantExpr(p).is_null() || llvm::LLVMGetConstOpcode(p) != LLVMOpcode::LLVMGetElementPtr {
            return None;
        }
        let zero = (1..llvm::LLVMGetNumOperands(p) as u32).all(|k| {
            let x = llvm::LLVMGetOperand(p, k);
            !llvm::LLVMIsAConstantInt(x).is_null() && llvm::LLVMConstIntGetZExtValue(x) == 0
        });
        if !zero {
            return None;
        }
        p = llvm::LLVMGetOperand(p, 0);
    }
    None
}

/// The tokens as the runtime takes them: each as a length byte and its
/// bytes.
pub fn encode(tokens: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for t in tokens {
        let t = &t[..t.len().min(MAX_TOKEN_LEN)];
        out.push(t.len() as u8);
        out.extend_from_slice(t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_are_one_byte_and_words_their_little_endian_bytes() {
        assert_eq!(int_token(b'_' as u64, 32), Some(vec![b'_']));
        assert_eq!(int_token(b'_' as u64, 8), Some(vec![b'_']));
        assert_eq!(int_token(0x474e, 16), Some(vec![0x4e, 0x47]));
        assert_eq!(int_token(0x4e47_5089, 32), Some(vec![0x89, 0x50, 0x47, 0x4e]));
        assert_eq!(int_token(0x1_0000_0000, 64), Some(vec![0, 0, 0, 0, 1, 0, 0, 0]));
        assert_eq!(int_token(300, 64), Some(vec![0x2c, 0x01]));
    }

    #[test]
    fn small_negative_values_and_booleans_are_no_tokens() {
        assert_eq!(int_token(u32::MAX as u64, 32), None, "EOF");
        assert_eq!(int_token(u64::MAX - 3, 64), None);
        assert_eq!(int_token(0xff, 8), Some(vec![0xff]), "a byte of 255 may be a character");
        assert_eq!(int_token(1, 1), None);
        assert_eq!(int_token(5, 128), None);
    }

    #[test]
    fn encoding_is_length_then_bytes() {
        assert_eq!(encode(&[b"_".to_vec(), b"if".to_vec()]), b"\x01_\x02if".to_vec());
        assert_eq!(encode(&[vec![7; 40]]).len(), 1 + MAX_TOKEN_LEN);
    }
}
