//! Carver: turns the runtime's snapshots of calls into unit tests, tells
//! whether a replay was faithful, and renders a unit as C for review.
//! maps a unit's arguments to the system input (`mapping`) and puts new
//! values into them (`patch`), and gives `main` room for a word its
//! command line does not have yet (`words`) and its input file's numbers
//! room to grow (`grow`); with a grammar, parameters map to derivation
//! nodes of the input (`align`); a string the input holds encoded (a
//! query string, a JSON body) maps through the encoding (`encoded`); an
//! integer a binary input holds as bytes maps to them (`binary`); a count
//! beside a pointer maps as the length of what it points at (`counts`);
//! a digit array's sign field maps to the mark in front of its digits
//! (`sign`).

pub mod align;
mod binary;
mod counts;
mod digits;
mod encoded;
mod fidelity;
pub mod grow;
pub mod mapping;
pub mod patch;
mod render;
mod sign;
pub mod words;

pub use fidelity::{compare, Fidelity};
pub use render::render_c;
