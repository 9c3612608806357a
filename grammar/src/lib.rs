//! Context-free grammars of a program's input ("Inputs from Hell"): the
//! Fuzzing Book's JSON form, with per-alternative probabilities; samples
//! parsed into derivation trees whose nodes know their byte spans;
//! probabilities learned from the samples and inverted; bounded generation
//! that always terminates.

mod derivation;
mod generate;
mod grammar;
mod learn;
mod load;
mod parse;
mod tree;

pub use derivation::{Derivation, Expansion};
pub use generate::Generator;
pub use grammar::{Alt, Grammar, NonTerminal, Sym};
pub use learn::{counts, inverted, learned, rank_swap, Counts};
pub use parse::{parse, Parser};
pub use tree::{Bytes, Node};

/// What can go wrong with a grammar or a sample.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {path}: {err}")]
    Read { path: std::path::PathBuf, err: std::io::Error },
    /// The grammar file is not the JSON form (with the line).
    #[error("{path}: line {line}: {why}")]
    Format { path: String, line: usize, why: String },
    /// A rule refers to, or the grammar lacks, a nonterminal; or one is
    /// unreachable or produces no finite string.
    #[error("{path}: line {line}: {nonterminal}: {why}")]
    Rule { path: String, line: usize, nonterminal: String, why: String },
    /// A sample the grammar does not derive (the byte where parsing stopped).
    #[error("the sample does not parse: it stops at byte {at}")]
    NoParse { at: usize },
}
