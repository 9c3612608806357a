//! A model of the acceptance of a regular expression by `re_compile_pattern`
//! and `regcomp`, libc's compilers, which no clone shadows: a path entry
//! whose condition says the pattern's bytes form a regex the compiler
//! accepts (or rejects, as the real call did). With it on the path, a
//! solution for a later branch — in the program's own regex code, such as
//! gnulib's dfa — keeps the pattern valid (a `[` gets its `]`), and a
//! rejected pattern is one negation away from a valid one.
//!
//! The condition runs an automaton over the bytes: backslash escapes,
//! bracket expressions (`]` first is literal, `[:` `[.` `[=` up to their
//! closing `:]`..., a class named as libc names one), groups (`\(`...`\)`
//! or `(`...`)`, nested up to [`MAX_DEPTH`]), intervals, back-references
//! to closed groups and, in extended syntax, an operator with nothing
//! before it. What it leaves out (range order, interval bounds) may make
//! it disagree with the real call; it is then not recorded at all.

use crate::model::op::Op;
use crate::model::trace::*;
use crate::sym::{self, Sym};
use crate::symfold::{B, V, W};
use alloc::collections::BTreeMap;

/// Longest pattern modelled.
const MAX_LEN: usize = 256;
/// Deepest nesting of groups modelled (deeper counts as this deep).
const MAX_DEPTH: u64 = 7;
/// Groups a back-reference may name.
const MAX_GROUPS: u64 = 9;
/// Longest name between `[:` and `:]` counted (with both colons), past
/// the longest class name.
const NAME_MAX: u64 = 9;
/// The character classes libc knows in every locale.
const CLASSES: [&str; 12] =
    ["alpha", "upper", "lower", "digit", "alnum", "xdigit", "space", "print", "punct", "graph", "cntrl", "blank"];

// glibc's syntax bits (regex.h).
const RE_BK_PLUS_QM: u64 = 1 << 1;
const RE_CHAR_CLASSES: u64 = 1 << 2;
const RE_CONTEXT_INDEP_ANCHORS: u64 = 1 << 3;
const RE_CONTEXT_INDEP_OPS: u64 = 1 << 4;
const RE_CONTEXT_INVALID_OPS: u64 = 1 << 5;
const RE_DOT_NEWLINE: u64 = 1 << 6;
const RE_DOT_NOT_NULL: u64 = 1 << 7;
const RE_INTERVALS: u64 = 1 << 9;
const RE_LIMITED_OPS: u64 = 1 << 10;
const RE_NO_BK_BRACES: u64 = 1 << 12;
const RE_NO_BK_PARENS: u64 = 1 << 13;
const RE_NO_BK_REFS: u64 = 1 << 14;
const RE_NO_BK_VBAR: u64 = 1 << 15;
const RE_NO_EMPTY_RANGES: u64 = 1 << 16;
const RE_UNMATCHED_RIGHT_PAREN_ORD: u64 = 1 << 17;
const RE_CONTEXT_INVALID_DUP: u64 = 1 << 24;
const POSIX_COMMON: u64 = RE_CHAR_CLASSES | RE_DOT_NEWLINE | RE_DOT_NOT_NULL | RE_INTERVALS | RE_NO_EMPTY_RANGES;
/// What `regcomp` compiles with, without and with `REG_EXTENDED`.
const POSIX_BASIC: u64 = POSIX_COMMON | RE_BK_PLUS_QM | RE_CONTEXT_INVALID_DUP;
const POSIX_EXTENDED: u64 = POSIX_COMMON
    | RE_CONTEXT_INDEP_ANCHORS
    | RE_CONTEXT_INDEP_OPS
    | RE_NO_BK_BRACES
    | RE_NO_BK_PARENS
    | RE_NO_BK_VBAR
    | RE_CONTEXT_INVALID_OPS
    | RE_UNMATCHED_RIGHT_PAREN_ORD;

extern "C" {
    static re_syntax_options: u64;
}

/// The automaton's modes.
mod m {
    pub const NORMAL: u64 = 0;
    /// After a backslash, outside brackets.
    pub const ESCAPE: u64 = 1;
    /// Right after `[`, and after `[^`: a `]` here is literal.
    pub const LIST_START: u64 = 2;
    pub const LIST_CARET: u64 = 3;
    pub const LIST: u64 = 4;
    /// After a `[` inside a list.
    pub const LIST_BRACKET: u64 = 5;
    /// Inside `[:`, `[.` or `[=`, and after its closing character.
    pub const CLASS: u64 = 6;
    pub const CLASS_END: u64 = 7;
    /// Inside an interval, and after its backslash (basic syntax).
    pub const INTERVAL: u64 = 8;
    pub const INTERVAL_ESCAPE: u64 = 9;
    pub const ERROR: u64 = 10;
    /// Right after the opening of an interval: it may not be empty.
    pub const INTERVAL_OPEN: u64 = 11;
}

/// What the last token leaves an operator (`State::start`).
const NOTHING: u64 = 1;
const AFTER_STAR: u64 = 2;
const AT_START: u64 = 3;

/// The automaton's state after some bytes.
#[derive(Clone, Copy)]
struct State {
    mode: V,
    depth: V,
    groups: V,
    /// What the last token leaves an operator: [`NOTHING`] (extended syntax:
    /// an operator here is an error), [`AFTER_STAR`] (basic: a second `*`
    /// is), [`AT_START`] (basic: a `*` here is literal), else 0.
    start: V,
    /// Inside `[:`, `[.` or `[=`: its bytes so far, opening character
    /// first, the last eight of them (64 bits), and how many (up to
    /// [`NAME_MAX`]).
    name: V,
    name_len: V,
}

/// One alternative of a transition: taken when `when` holds (and no
/// earlier one did).
struct Arm {
    when: V,
    to: State,
}

/// Chooses among `arms` in order, `otherwise` when none holds.
fn choose(b: &mut B, arms: &[Arm], otherwise: State) -> State {
    let mut r = otherwise;
    for a in arms.iter().rev() {
        r = State {
            mode: b.ite(a.when, a.to.mode, r.mode, W),
            depth: b.ite(a.when, a.to.depth, r.depth, W),
            groups: b.ite(a.when, a.to.groups, r.groups, W),
            start: b.ite(a.when, a.to.start, r.start, W),
            name: b.ite(a.when, a.to.name, r.name, 64),
            name_len: b.ite(a.when, a.to.name_len, r.name_len, W),
        };
    }
    r
}

/// Whether `st.name` (which ends with a closing character) names a
/// character class, or is one character between `.`s or `=`s.
fn known_name(b: &mut B, st: State) -> V {
    let mut known = V::K(0);
    let mut len_is = BTreeMap::new();
    let mut is_len = |b: &mut B, n: u64| *len_is.entry(n).or_insert_with(|| b.eq(st.name_len, n));
    for class in CLASSES {
        let word = [b":", class.as_bytes(), b":"].concat();
        let k = word.iter().fold(0, |r, &c| r << 8 | u64::from(c));
        let same = b.eq_w(st.name, k, 64);
        let len = is_len(b, word.len() as u64);
        let this = b.and(same, len);
        known = b.or(known, this);
    }
    let three = is_len(b, 3);
    let ends = b.mask(st.name, 0xff00ff);
    for delim in [b'.', b'='] {
        let d = u64::from(delim);
        let same = b.eq_w(ends, d << 16 | d, 64);
        let this = b.and(same, three);
        known = b.or(known, this);
    }
    known
}

/// The state after byte `c` (of whatever mode `st` is in).
fn next(b: &mut B, st: State, c: V, syntax: u64) -> State {
    let ere_parens = syntax & RE_NO_BK_PARENS != 0;
    let ere_braces = syntax & RE_NO_BK_BRACES != 0 && syntax & RE_INTERVALS != 0;
    let bre_braces = syntax & RE_NO_BK_BRACES == 0 && syntax & RE_INTERVALS != 0;
    let ops_need_operand = syntax & RE_CONTEXT_INVALID_OPS != 0;
    let bar = syntax & RE_NO_BK_VBAR != 0 && syntax & RE_LIMITED_OPS == 0;
    let k = |x: bool| V::K(u64::from(x));
    let is = |b: &mut B, ch: u8| b.eq(c, u64::from(ch));
    let mode = |x: u64| V::K(x);
    let with = |m: u64| State { mode: V::K(m), ..st };
    let normal = State { mode: mode(m::NORMAL), start: V::K(0), ..st };

    let backslash = is(b, b'\\');
    let open = is(b, b'[');
    let close = is(b, b']');
    let caret = is(b, b'^');
    let lparen = is(b, b'(');
    let rparen = is(b, b')');
    let lbrace = is(b, b'{');
    let rbrace = is(b, b'}');
    let colon = is(b, b':');
    let dot = is(b, b'.');
    let equal = is(b, b'=');
    let class_char = b.or(colon, dot);
    let class_char = b.or(class_char, equal);
    let minus_zero = match c {
        V::K(x) => V::K(x.wrapping_sub(u64::from(b'0')) & 0xff),
        V::S(n) => {
            let z = b.konst(u64::from(b'0'), W);
            let r = b.s.node(Op::Sub, W, n, z, 0, 0);
            b.sym(r)
        }
    };
    let digit = b.ule(minus_zero, 9);
    let comma = is(b, b',');
    let star = is(b, b'*');
    let plus = is(b, b'+');
    let question = is(b, b'?');
    let vbar = is(b, b'|');
    let depth_zero = b.eq(st.depth, 0);
    // Extended syntax: an operator needs something before it. Basic: a
    // `*` right after another is an error (RE_CONTEXT_INVALID_DUP).
    let ere = ops_need_operand;
    let dup_rule = syntax & RE_CONTEXT_INVALID_DUP != 0 && !ere;
    let fresh = V::K(if ere { NOTHING } else { AT_START });
    let deeper = State { mode: mode(m::NORMAL), depth: b.step(st.depth, 1, MAX_DEPTH), start: fresh, ..st };
    let closed = State {
        mode: mode(m::NORMAL),
        depth: b.step(st.depth, -1, MAX_DEPTH),
        groups: b.step(st.groups, 1, MAX_GROUPS),
        start: V::K(0),
        ..st
    };
    let unmatched = if syntax & RE_UNMATCHED_RIGHT_PAREN_ORD != 0 { normal } else { with(m::ERROR) };
    let close_group = choose(b, &[Arm { when: depth_zero, to: unmatched }], closed);

    // Outside brackets.
    let op = b.or(star, plus);
    let op = b.or(op, question);
    let op = b.and(op, k(ops_need_operand));
    let nothing = b.eq(st.start, NOTHING);
    let op_at_start = b.and(op, nothing);
    let ere_interval = b.and(lbrace, k(ere_braces));
    let ere_interval_at_start = b.and(ere_interval, nothing);
    let bad_start = b.or(op_at_start, ere_interval_at_start);
    let ere_open = b.and(lparen, k(ere_parens));
    let ere_close = b.and(rparen, k(ere_parens));
    let alt = b.and(vbar, k(bar));
    let dollar = is(b, b'$');
    let anchor = b.or(caret, dollar);
    let ere_anchor = b.and(anchor, k(ere));
    let bre_star = b.and(star, k(!ere));
    let after_star = b.eq(st.start, AFTER_STAR);
    let bre_star_again = b.and(bre_star, after_star);
    let bre_star_again = b.and(bre_star_again, k(dup_rule));
    let at_start = b.eq(st.start, AT_START);
    let bre_literal_star = b.and(bre_star, at_start);
    let bre_caret = b.and(caret, k(!ere));
    let bre_leading_caret = b.and(bre_caret, at_start);
    let in_normal = choose(
        b,
        &[
            Arm { when: backslash, to: with(m::ESCAPE) },
            Arm { when: open, to: State { start: V::K(0), ..with(m::LIST_START) } },
            Arm { when: bad_start, to: with(m::ERROR) },
            Arm { when: bre_star_again, to: with(m::ERROR) },
            Arm { when: bre_literal_star, to: normal },
            Arm { when: bre_star, to: State { start: V::K(AFTER_STAR), ..normal } },
            Arm { when: bre_leading_caret, to: State { start: V::K(AT_START), ..normal } },
            Arm { when: ere_anchor, to: State { start: V::K(NOTHING), ..normal } },
            Arm { when: ere_open, to: deeper },
            Arm { when: ere_close, to: close_group },
            Arm { when: ere_interval, to: with(m::INTERVAL_OPEN) },
            Arm { when: alt, to: State { start: V::K(NOTHING), ..normal } },
        ],
        normal,
    );
    let bre_open = b.and(lparen, k(!ere_parens));
    let bre_close = b.and(rparen, k(!ere_parens));
    let bre_interval = b.and(lbrace, k(bre_braces));
    // `\1`..`\9`: a group closed before.
    let zero = b.eq(c, u64::from(b'0'));
    let nonzero = b.not(zero);
    let backref = b.and(digit, nonzero);
    let backref = b.and(backref, k(syntax & RE_NO_BK_REFS == 0));
    let groups_plus = match st.groups {
        V::K(x) => V::K(x + u64::from(b'0')),
        V::S(n) => {
            let z = b.konst(u64::from(b'0'), W);
            let r = b.s.node(Op::Add, W, n, z, 0, 0);
            b.sym(r)
        }
    };
    // c > groups + '0'
    let unclosed = match (c, groups_plus) {
        (V::K(x), V::K(y)) => V::K(u64::from(x > y)),
        (x, y) => {
            let (xn, yn) = (b.node(x, W), b.node(y, W));
            let r = b.s.node(Op::Ugt, 1, xn, yn, 0, 0);
            b.sym(r)
        }
    };
    let bad_ref = b.and(backref, unclosed);
    let in_escape = choose(
        b,
        &[
            Arm { when: bre_open, to: deeper },
            Arm { when: bre_close, to: close_group },
            Arm { when: bre_interval, to: with(m::INTERVAL_OPEN) },
            Arm { when: bad_ref, to: with(m::ERROR) },
        ],
        normal,
    );

    // Brackets.
    let list = with(m::LIST);
    let in_list_start =
        choose(b, &[Arm { when: caret, to: with(m::LIST_CARET) }, Arm { when: open, to: with(m::LIST_BRACKET) }], list);
    let in_list_caret = choose(b, &[Arm { when: open, to: with(m::LIST_BRACKET) }], list);
    let in_list = choose(b, &[Arm { when: close, to: normal }, Arm { when: open, to: with(m::LIST_BRACKET) }], list);
    let in_list_bracket = choose(
        b,
        &[
            Arm { when: class_char, to: with(m::CLASS) },
            Arm { when: close, to: normal },
            Arm { when: open, to: with(m::LIST_BRACKET) },
        ],
        list,
    );
    let in_list_bracket = State { name: b.zext(c), name_len: V::K(1), ..in_list_bracket };
    // A name grows, and is checked, only where the automaton may be
    // inside one (its mode known to be another, nothing is built).
    let may_be = |x: u64| matches!(st.mode, V::S(_)) || st.mode == V::K(x);
    let (name, name_len) = if may_be(m::CLASS) || may_be(m::CLASS_END) {
        (b.shift_in(st.name, c), b.step(st.name_len, 1, NAME_MAX))
    } else {
        (st.name, st.name_len)
    };
    let class = State { mode: V::K(m::CLASS), name, name_len, ..st };
    let class_end = State { mode: V::K(m::CLASS_END), ..class };
    let in_class = choose(b, &[Arm { when: class_char, to: class_end }], class);
    // The name ends at its opening character and `]`: a class must be one
    // libc knows, a collating element or an equivalence class one
    // character (libc's C locale).
    let known = if may_be(m::CLASS_END) { known_name(b, st) } else { V::K(0) };
    let valid = b.and(close, known);
    let unknown = b.not(known);
    let invalid = b.and(close, unknown);
    let in_class_end = choose(
        b,
        &[
            Arm { when: valid, to: list },
            Arm { when: invalid, to: with(m::ERROR) },
            Arm { when: class_char, to: class_end },
        ],
        class,
    );

    // Intervals.
    let interval_char = b.or(digit, comma);
    let interval_backslash = b.and(backslash, k(!ere_braces));
    let interval_end = b.and(rbrace, k(ere_braces));
    let in_interval = choose(
        b,
        &[
            Arm { when: interval_char, to: with(m::INTERVAL) },
            Arm { when: interval_backslash, to: with(m::INTERVAL_ESCAPE) },
            Arm { when: interval_end, to: normal },
        ],
        with(m::ERROR),
    );
    let in_interval_escape = choose(b, &[Arm { when: rbrace, to: normal }], with(m::ERROR));
    let in_interval_open = choose(b, &[Arm { when: interval_char, to: with(m::INTERVAL) }], with(m::ERROR));

    let by_mode = [
        (m::NORMAL, in_normal),
        (m::ESCAPE, in_escape),
        (m::LIST_START, in_list_start),
        (m::LIST_CARET, in_list_caret),
        (m::LIST, in_list),
        (m::LIST_BRACKET, in_list_bracket),
        (m::CLASS, in_class),
        (m::CLASS_END, in_class_end),
        (m::INTERVAL, in_interval),
        (m::INTERVAL_ESCAPE, in_interval_escape),
        (m::INTERVAL_OPEN, in_interval_open),
    ];
    if let V::K(now) = st.mode {
        return by_mode.iter().find(|(x, _)| *x == now).map_or(with(m::ERROR), |(_, s)| *s);
    }
    let arms: alloc::vec::Vec<Arm> = by_mode
        .iter()
        .map(|&(x, to)| {
            let when = b.eq(st.mode, x);
            Arm { when, to }
        })
        .collect();
    choose(b, &arms, with(m::ERROR))
}

/// Whether the pattern's bytes form a regex the compiler accepts, under
/// `syntax`; `None` when no byte is symbolic or the DAG is full.
fn accepted(s: &mut Sym, p: usize, len: usize, syntax: u64) -> Option<(V, bool)> {
    let len = len.min(MAX_LEN);
    if !(0..len).any(|i| s.byte(p + i) != 0) {
        return None;
    }
    let mut b = B::new(s);
    let start = V::K(if syntax & RE_CONTEXT_INVALID_OPS != 0 { NOTHING } else { AT_START });
    let init =
        State { mode: V::K(m::NORMAL), depth: V::K(0), groups: V::K(0), start, name: V::K(0), name_len: V::K(0) };
    let (mut sym_st, mut con_st) = (init, init);
    for i in 0..len {
        // SAFETY: the real call read the pattern's `len` bytes.
        let v = V::K(u64::from(unsafe { *((p + i) as *const u8) }));
        let c = match b.s.byte(p + i) {
            0 => v,
            e => V::S(e),
        };
        sym_st = next(&mut b, sym_st, c, syntax);
        con_st = next(&mut b, con_st, v, syntax);
        if b.full {
            return None;
        }
    }
    let verdict = |b: &mut B, st: State| {
        let normal = b.eq(st.mode, m::NORMAL);
        let closed = b.eq(st.depth, 0);
        b.and(normal, closed)
    };
    let ok = verdict(&mut b, sym_st);
    let concrete = verdict(&mut b, con_st) == V::K(1);
    (!b.full).then_some((ok, concrete))
}

/// After `re_compile_pattern` (`len` bytes; `syntax` is `u64::MAX` for
/// libc's `re_syntax_options`) or `regcomp` (a NUL-ended pattern, `len`
/// is `u64::MAX`; `syntax` its `cflags`): `ok` is whether the call
/// accepted the pattern.
///
/// # Safety
/// `pattern` is the pattern the real call compiled.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_regex(site: u32, pattern: *const u8, len: u64, syntax: u64, ok: u32) {
    let Some(s) = sym::get() else { return };
    if pattern.is_null() {
        return;
    }
    let p = pattern as usize;
    let (len, syntax) = if len == u64::MAX {
        let extended = syntax & 1 != 0;
        (crate::symmodels::strnlen(p, MAX_LEN + 1), if extended { POSIX_EXTENDED } else { POSIX_BASIC })
    } else if syntax == u64::MAX {
        // SAFETY: libc's variable, read on the program's thread.
        (len as usize, unsafe { re_syntax_options })
    } else {
        (len as usize, syntax)
    };
    if len > MAX_LEN {
        return;
    }
    let Some((cond, concrete)) = accepted(s, p, len, syntax) else { return };
    if concrete != (ok != 0) {
        return;
    }
    if let V::S(n) = cond {
        s.record(PATH_BRANCH, site, n, u64::from(ok != 0), &[], [NO_SLOT, NO_SLOT]);
    }
}
