//! Patterns, how many mutations a test gets and where: `od` once, `nd` many, `bu` a burst.

use provenance::{relabel, Donor, Labels};

use super::ctx::Ctx;
use super::scores::Scores;
use super::table::MUTATORS;

/// Pattern names and default priorities.
pub(crate) const PATTERNS: &[(&str, f64)] = &[("od", 1.0), ("nd", 2.0), ("bu", 1.0)];
const ONCE: usize = 0;
const MANY: usize = 1;

/// At most this many mutations per test.
const MAX_STEPS: usize = 16;
/// A step gives up after this many mutators could not change the test.
const TRIES: usize = 4;

/// Mutates `data` following pattern `pattern`, choosing mutators by `scores`; pushes the
/// mutators that changed it to `used` and keeps `labels` those of `data`. `scratch` is a
/// buffer to reuse.
pub(crate) fn apply(
    pattern: usize,
    ctx: &mut Ctx<'_>,
    data: &mut Vec<u8>,
    labels: &mut Labels,
    scores: &mut Scores,
    scratch: &mut Vec<u8>,
    used: &mut Vec<usize>,
) {
    let steps = match pattern {
        ONCE => 1,
        MANY => 1 + ctx.geometric(MAX_STEPS - 1),
        _ => {
            let center = ctx.gap(data.len());
            let radius = 1 << (2 + ctx.below(7)); // 4 to 256 bytes
            ctx.focus = Some((center.saturating_sub(radius), center + radius));
            2 + ctx.geometric(MAX_STEPS - 2)
        }
    };
    for _ in 0..steps {
        used.extend(step(ctx, data, labels, scores, scratch));
    }
    ctx.focus = None;
}

/// One mutation by a mutator that manages to change `data`, if one of a few does.
fn step(
    ctx: &mut Ctx<'_>,
    data: &mut Vec<u8>,
    labels: &mut Labels,
    scores: &mut Scores,
    scratch: &mut Vec<u8>,
) -> Option<usize> {
    for _ in 0..TRIES {
        let i = scores.pick(ctx.rng);
        scratch.clear();
        scratch.extend_from_slice(data);
        let donors = ctx.donors.len();
        let ok = (MUTATORS[i].run)(ctx, data);
        data.truncate(ctx.limit);
        let changed = ok && data != scratch;
        scores.tried(i, changed);
        if changed {
            *labels = relabelled(ctx, scratch, labels, data, MUTATORS[i].name, donors);
            return Some(i);
        }
        // What a mutation that changed nothing took from elsewhere is no
        // parent of the test.
        ctx.donors.truncate(donors);
        if !ok && data != scratch {
            // A mutator that gave up must leave the test alone; never trust a half edit.
            data.clear();
            data.extend_from_slice(scratch);
        }
    }
    None
}

/// The labels of `after`, made by mutator `op` from `before` (labelled `labels`) and the
/// corpus entries it took since `ctx.donors[first_donor]`.
pub(crate) fn relabelled(
    ctx: &Ctx<'_>,
    before: &[u8],
    labels: &Labels,
    after: &[u8],
    op: &str,
    first_donor: usize,
) -> Labels {
    let mut donors: Vec<Donor<'_>> = Vec::new();
    for &d in &ctx.donors[first_donor..] {
        let s = &ctx.corpus[d];
        if !donors.iter().any(|x| x.id == s.id) {
            donors.push(Donor { id: s.id, data: s.data, labels: s.labels });
        }
    }
    relabel(before, labels, after, op, &donors)
}
