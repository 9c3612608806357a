//! Facts about a trace's expression DAG, computed once per trace and
//! extended on demand: the input bytes each node depends on, and a
//! structural hash (equal for equal expressions in different traces).
//! Operands always have smaller ids than their users, so both are filled
//! in increasing id order.

use model::op::Op;
use model::symtrace::Trace;
use std::rc::Rc;

#[derive(Default)]
pub struct Dag {
    /// The trace these facts are about.
    trace: u64,
    inputs: Vec<Rc<[u32]>>,
    hashes: Vec<u64>,
    /// A hash of each of the trace's tables.
    tables: Vec<u64>,
}

fn mix(h: u64, v: u64) -> u64 {
    (h ^ v).wrapping_mul(0x0100_0000_01b3).rotate_left(17)
}

fn union(a: &Rc<[u32]>, b: &Rc<[u32]>) -> Rc<[u32]> {
    if b.is_empty() || Rc::ptr_eq(a, b) {
        return a.clone();
    }
    if a.is_empty() {
        return b.clone();
    }
    let mut v: Vec<u32> = a.iter().chain(b.iter()).copied().collect();
    v.sort_unstable();
    v.dedup();
    v.into()
}

impl Dag {
    /// Starts over when `id` is another trace than last time.
    pub fn for_trace(&mut self, id: u64) {
        if self.trace != id {
            *self = Dag { trace: id, ..Dag::default() };
        }
    }

    fn fill(&mut self, t: &Trace, upto: u32) {
        if self.inputs.is_empty() {
            self.inputs.push(Rc::from(Vec::new()));
            self.hashes.push(0);
            self.tables = t.tables.iter().map(|e| e.iter().fold(0xcbf2_9ce4_8422_2325, |h, &v| mix(h, v))).collect();
        }
        for id in self.inputs.len()..=(upto as usize).min(t.nodes.len().saturating_sub(1)) {
            let n = t.nodes[id];
            let (a, b, c) = (n.a as usize, n.b as usize, n.c as usize);
            let ins = match (n.op, n.op.operands()) {
                (Op::Input, _) => Rc::from(vec![n.val as u32]),
                (_, 0) => self.inputs[0].clone(),
                (_, 1) => self.inputs[a].clone(),
                (_, 2) => union(&self.inputs[a], &self.inputs[b]),
                _ => {
                    let ab = union(&self.inputs[a], &self.inputs[b]);
                    union(&ab, &self.inputs[c])
                }
            };
            let mut h = mix(mix(u64::from(n.op.code()), u64::from(n.width)), n.val);
            if n.op == Op::Table {
                h = mix(h, self.tables.get(n.val as usize).copied().unwrap_or(0));
            }
            if n.op.operands() > 0 {
                h = mix(
                    mix(mix(h, self.hashes[a]), self.hashes.get(b).copied().unwrap_or(0)),
                    self.hashes.get(c).copied().unwrap_or(0),
                );
            }
            self.inputs.push(ins);
            self.hashes.push(h);
        }
    }

    /// The input bytes `node` depends on, sorted.
    pub fn inputs(&mut self, t: &Trace, node: u32) -> Rc<[u32]> {
        self.fill(t, node);
        self.inputs.get(node as usize).cloned().unwrap_or_else(|| Rc::from(Vec::new()))
    }

    pub fn hash(&mut self, t: &Trace, node: u32) -> u64 {
        self.fill(t, node);
        self.hashes.get(node as usize).copied().unwrap_or(0)
    }
}
