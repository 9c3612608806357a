//! Provenance: where every test of a campaign came from. A test's trail
//! leads back, parent by parent, to a seed; what each seed led to is
//! counted (descendants, lifts, crashes, hangs, alarms), by seed and by
//! the operator that made each step. Read from the campaign directory as
//! it is written: the name of a queue entry, crash or hang carries its
//! parent and operators (`id:N,src:P,op:OPS`; a seed, `id:N,orig:NAME`),
//! and an alarm's record names the system test its unit was carved from.

mod graph;
mod labels;
mod names;
mod pseudo;
mod rebuild;
mod record;
mod relabel;
mod tokens;

pub use graph::{Campaign, Kind, Step, Summary, Test};
pub use labels::{Labels, Mismatch, Origin, Run, FRESH};
pub use names::{parse, Name};
pub use pseudo::{compare, measure, pseudo, token_spans, Agreement, Pseudo, Source, MIN_PSEUDO, UNKNOWN_OP};
pub use rebuild::{Rebuilt, Unrecorded};
pub use record::{record_path, Lift, Maker, Record, RECORD_VERSION};
pub use relabel::{relabel, Donor, MIN_COPY};
pub use tokens::{shown, Change};

/// What can go wrong reading a campaign's provenance.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {path}: {err}")]
    Read { path: std::path::PathBuf, err: std::io::Error },
    #[error("no test {0} in this campaign")]
    NoSuchTest(String),
    #[error("{path}: not a trail record: {why}")]
    BadRecord { path: std::path::PathBuf, why: String },
    #[error("{0}: its trail does not reach a seed ({1})")]
    Unresolved(String, String),
}
