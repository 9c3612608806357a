//! The wide character functions the symbolic models know, in the order
//! that numbers them: the instrumentation passes a call's number (its
//! place in `abi.rs`'s list for `__sym_model_wchar`, which a test checks
//! is this order) to the runtime, which names the call by it when it pins
//! a value. The numbers are those of the narrow forms in the
//! runtime's `__sym_model_char`. No `std`: the runtime compiles this file
//! too.

use core::ffi::CStr;

pub const WIDE_CHAR_FUNCTIONS: [&CStr; 14] = [
    c"towupper",
    c"towlower",
    c"iswdigit",
    c"iswspace",
    c"iswalpha",
    c"iswalnum",
    c"iswupper",
    c"iswlower",
    c"iswxdigit",
    c"iswprint",
    c"iswgraph",
    c"iswcntrl",
    c"iswpunct",
    c"iswblank",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_numbers_are_the_narrow_forms() {
        assert_eq!(WIDE_CHAR_FUNCTIONS[0], c"towupper", "toupper is 0");
        assert_eq!(WIDE_CHAR_FUNCTIONS[9], c"iswprint", "isprint is 9");
        assert_eq!(WIDE_CHAR_FUNCTIONS[13], c"iswblank", "isblank is 13");
    }
}
