//! The mutators: op name, default priority, function and what it does.
//!
//! Priorities follow the spirit of radamsa's default mutation list: textual numbers and
//! fusing count more, everything else counts once, except the five that only delete
//! ([`SHRINK`]). Thirteen mutators only grow a test and five only shrink it; at equal
//! priorities 59 % of the tests made from libxml2's seeds were larger than their parent
//! and 28 % smaller, and the queue a campaign keeps grew with them (a test's run time
//! follows its size). Deletions at 2.5 balance that (47 % larger, 42 % smaller):
//! `scripts/bench/ab.sh` on xml-fuzz, 2 minutes, two pairs: 1.005–1.048 × the execs and
//! 1.047–1.063 × the branch outcomes; 4.0 gave no more. On sed and dc (full
//! campaigns, two pairs each) branches were 0.972–1.012 ×, within a run's noise.
//!
//! `ti` and `to` (the dictionary, `tokens.rs`) are not radamsa's either: they count only
//! once the campaign gave the generator a dictionary (the target's comparisons, `--dict`).
//!
//! `wa` and `wi` (binary words, `words.rs`) are not radamsa's. Full campaigns, 5 minutes,
//! `scripts/bench/ab.sh`: branches 1.002 and 1.010 × on png-fuzz, 1.088, 0.842, 1.122,
//! 1.150 and 1.010 × on xml-fuzz (whose harness reads its parser options as a 4-byte
//! word), 0.983 and 1.029 × on sqlite-fuzz.

use super::ctx::MutFn;
use super::{ascii, bytes, fuse, lines, num, seq, tokens, tree, utf8, words};

pub(crate) struct Mutator {
    /// The op name recorded in `TestCase::op`.
    pub name: &'static str,
    pub priority: f64,
    pub run: MutFn,
    pub what: &'static str,
}

const fn m(name: &'static str, priority: f64, run: MutFn, what: &'static str) -> Mutator {
    Mutator { name, priority, run, what }
}

/// The mutators that take from the dictionary: never picked without one.
pub(crate) const NEEDS_TOKENS: [&str; 2] = ["ti", "to"];

/// The priority of the mutators that only delete.
const SHRINK: f64 = 2.5;

pub(crate) const MUTATORS: &[Mutator] = &[
    m("bd", SHRINK, bytes::drop_byte, "drop a byte"),
    m("bf", 1.0, bytes::flip_bit, "flip one bit"),
    m("bi", 1.0, bytes::insert_byte, "insert a random byte"),
    m("br", 1.0, bytes::repeat_byte, "repeat a byte"),
    m("bp", 1.0, bytes::permute_bytes, "permute a few bytes"),
    m("bei", 1.0, bytes::inc_byte, "increment a byte by one"),
    m("bed", 1.0, bytes::dec_byte, "decrement a byte by one"),
    m("ber", 1.0, bytes::replace_byte, "swap a byte for a random one"),
    m("wa", 1.0, words::word_arith, "add or subtract 1 to 35 to a 1-, 2- or 4-byte word, either byte order"),
    m("wi", 1.0, words::word_interesting, "set a 1-, 2- or 4-byte word to a value at the edge of its range"),
    m("sr", 1.0, seq::repeat_seq, "repeat a sequence of bytes"),
    m("sd", SHRINK, seq::delete_seq, "delete a sequence of bytes"),
    m("ld", SHRINK, lines::delete_line, "delete a line"),
    m("lds", SHRINK, lines::delete_lines, "delete many lines"),
    m("lr2", 1.0, lines::dup_line, "duplicate a line"),
    m("li", 1.0, lines::copy_line_near, "copy a line close by"),
    m("lr", 1.0, lines::repeat_line, "repeat a line"),
    m("ls", 1.0, lines::swap_lines, "swap two lines"),
    m("lp", 1.0, lines::permute_lines, "permute lines"),
    m("lis", 1.0, lines::insert_line, "insert a line from elsewhere"),
    m("lrs", 1.0, lines::replace_line, "replace a line with one from elsewhere"),
    m("td", SHRINK, tree::delete_node, "delete a node"),
    m("tr2", 1.0, tree::dup_node, "duplicate a node"),
    m("ts1", 1.0, tree::swap_one, "swap one node with another one"),
    m("ts2", 1.0, tree::swap_two, "swap two nodes pairwise"),
    m("tr", 1.0, tree::repeat_path, "repeat a path of the parse tree"),
    m("uw", 1.0, utf8::widen, "try to make a code point too wide"),
    m("ui", 2.0, utf8::insert_funny, "insert funny unicode"),
    m("num", 5.0, num::mutate_number, "try to modify a textual number"),
    m("ab", 1.0, ascii::ascii_bad, "enhance silly issues in ASCII string data handling"),
    m("ft", 2.0, fuse::fuse_this, "jump to a similar position in another test"),
    m("fn", 1.0, fuse::fuse_next, "likewise within the same test"),
    m("fo", 2.0, fuse::fuse_old, "fuse with a corpus entry"),
    m("ti", 2.0, tokens::insert_token, "insert a token of the dictionary"),
    m("to", 2.0, tokens::overwrite_token, "write a token of the dictionary over bytes"),
];
