//! The wide character functions the symbolic models know, in the order
//! that numbers them: the instrumentation passes a call's number to the
//! runtime (`__sym_model_wchar`'s `kind`), which names the call by it when
//! it pins a value. The numbers are those of the narrow forms in the
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

/// The number of wide character function `name`.
pub fn wide_char_kind(name: &str) -> Option<u32> {
    WIDE_CHAR_FUNCTIONS.iter().position(|n| n.to_bytes() == name.as_bytes()).map(|k| k as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_numbers_are_the_narrow_forms() {
        assert_eq!(wide_char_kind("towupper"), Some(0), "toupper is 0");
        assert_eq!(wide_char_kind("iswprint"), Some(9), "isprint is 9");
        assert_eq!(wide_char_kind("iswblank"), Some(13), "isblank is 13");
        assert_eq!(wide_char_kind("isprint"), None);
        assert_eq!(wide_char_kind("iswprint\0"), None);
    }
}
