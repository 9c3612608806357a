//! Numbers at the ends of their types, on the trace's own path. A
//! negation asks for the direction a trace did not take; some bugs sit in
//! the direction it took, at values no branch separates from the seed's:
//! a room check `depth + count > 16` passes for a count of `UINT_MAX` (it
//! wraps), and the loop after it runs off the stack; `addr + len > 256`
//! passes for a length of `2^64 - 16`. For each order comparison with a
//! constant on the path (each site twice per unit and number compared,
//! for up to four numbers: a patch file's records each have their
//! length), the
//! numbers it compares are written at the ends of the usual types while
//! the path up to it still holds (the solver chain's text stage,
//! [`crate::solver::Solver::extremes`]); what keeps the path is queued
//! behind the solutions for directions not taken.

use super::worker::{child, direction, guards, path_conds, queue, Budget, Item, Job, Link};

use crate::solver::paced::thread_cpu;
use crate::solver::{Cond, Query, Solver};
use model::op::Op;
use model::trace::PATH_BRANCH;

/// Times a site is tried per unit, for each first input byte its
/// comparison reads.
const PER_SITE: u8 = 2;
/// Numbers (first input bytes) a site is tried for per unit: a patch
/// file's few records each, not every number of a long dc program.
const NUMBERS_PER_SITE: usize = 4;

/// Whether node `n` of the trace is an order comparison with a constant
/// on a value of 16 bits or more.
fn compares_a_number(job: &Job, n: u32) -> bool {
    let nodes = &job.trace.nodes;
    let Some(x) = nodes.get(n as usize) else { return false };
    if !x.op.is_order() {
        return false;
    }
    let konst = |k: u32| nodes.get(k as usize).is_some_and(|m| m.op == Op::Const);
    let wide = |k: u32| nodes.get(k as usize).is_some_and(|m| m.width >= 16);
    (konst(x.b) && wide(x.a)) || (konst(x.a) && wide(x.b))
}

/// Tries the ends of the types of the numbers the job's path compares
/// (past its bound), queueing what keeps the path.
pub(super) fn ends(solver: &mut dyn Solver, link: &Link, job: &Job, budget: &mut Budget) {
    let t = &job.trace;
    let started = thread_cpu();
    let mut prefix: Vec<Cond> = guards(job);
    let path = budget.path.get_or_insert_with(|| path_conds(link, job)).clone();
    for (i, e) in t.path.iter().enumerate() {
        let Some((cond, ok)) = path.get(i) else { break };
        if *ok {
            prefix.push(cond.clone());
        }
        if i < job.bound || !ok || e.kind != PATH_BRANCH || !compares_a_number(job, e.node) {
            continue;
        }
        let Some(&first) = budget.inputs(job, e.node).first() else { continue };
        {
            let mut s = link.lock();
            if s.closed || s.generation != job.generation {
                return;
            }
            let known = s.ends_tried.contains_key(&(e.site, first));
            if !known && s.ends_tried.keys().filter(|k| k.0 == e.site).count() >= NUMBERS_PER_SITE {
                continue;
            }
            let n = s.ends_tried.entry((e.site, first)).or_default();
            if *n >= PER_SITE {
                continue;
            }
            *n += 1;
            s.stats.ends_asked += 1;
        }
        let q = Query { id: job.id, trace: t, conds: prefix.clone(), near: &job.input };
        for assign in solver.extremes(&q) {
            link.lock().stats.ends_found += 1;
            let item = Item {
                input: child(&job.input, assign),
                bound: i + 1,
                target: direction(e),
                slot: None,
                again: true,
                context: None,
                expected: None,
                ends: true,
            };
            queue(link, job.generation, item, true, false);
        }
    }
    budget.solving += thread_cpu().saturating_sub(started);
}
