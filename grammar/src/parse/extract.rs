//! Reading one derivation back from the Earley sets: each item's first
//! back pointer, without recursion (trees can be as deep as the input is
//! long).

use super::{Back, Item, Parser, Set};
use crate::{Node, Sym};

/// A child still to build.
enum Spec {
    /// The terminal before the dot of `item`, starting at byte `at`.
    Term { item: Item, at: usize },
    /// The canonical empty derivation of `nt` at byte `at`.
    Empty { nt: usize, at: usize },
    /// The complete item `idx` of set `set`.
    Item { set: usize, idx: u32 },
    /// Level `level` of Leo chain `chain`.
    Chain { chain: usize, level: usize },
}

/// A chain of single completions: they all end in set `end`; `child` (of
/// set `end`) completes `links[0]`, whose completion completes `links[1]`,
/// and so on; each link is (its set, its index).
struct Chain {
    end: usize,
    child: u32,
    links: Vec<(usize, u32)>,
}

enum Task {
    Build(Spec),
    /// Pops `n` children and pushes their parent.
    Finish {
        nt: usize,
        alt: usize,
        start: usize,
        end: usize,
        n: usize,
    },
}

struct Extract<'p, 'g> {
    p: &'p Parser<'g>,
    sets: &'p [Set],
    chains: Vec<Chain>,
}

/// The tree of the complete item `root` of set `end`.
pub(super) fn tree(p: &Parser, sets: &[Set], input: &[u8], end: usize, root: u32) -> Node {
    let mut x = Extract { p, sets, chains: Vec::new() };
    let mut tasks = vec![Task::Build(Spec::Item { set: end, idx: root })];
    let mut values: Vec<Node> = Vec::new();
    while let Some(task) = tasks.pop() {
        match task {
            Task::Finish { nt, alt, start, end, n } => {
                let children = values.split_off(values.len() - n);
                values.push(Node::N { nt, alt, children, start, end });
            }
            Task::Build(Spec::Term { item, at }) => {
                let Sym::T(t) = &x.p.symbols(item)[item.dot as usize - 1] else {
                    unreachable!("scanned over a nonterminal")
                };
                debug_assert_eq!(&input[at..at + t.len()], t.as_slice());
                values.push(Node::T { bytes: crate::Bytes::from_slice(t), start: at });
            }
            Task::Build(Spec::Empty { nt, at }) => values.push(x.p.empty_tree(nt, at)),
            Task::Build(Spec::Item { set, idx }) => {
                let it = x.sets[set].items[idx as usize];
                let mut specs = Vec::new();
                x.walk(set, idx, &mut specs);
                x.push(&mut tasks, it, set, specs);
            }
            Task::Build(Spec::Chain { chain, level }) => {
                let c = &x.chains[chain];
                let (end, (set, idx)) = (c.end, c.links[level]);
                let last = match level {
                    0 => Spec::Item { set: end, idx: c.child },
                    _ => Spec::Chain { chain, level: level - 1 },
                };
                let mut specs = vec![last];
                x.walk(set, idx, &mut specs);
                let it = x.sets[set].items[idx as usize].advanced();
                x.push(&mut tasks, it, end, specs);
            }
        }
    }
    values.pop().expect("the root was built")
}

impl Extract<'_, '_> {
    /// Schedules the node of complete item `it` ending at `end`, whose
    /// children are `specs`, right to left.
    fn push(&self, tasks: &mut Vec<Task>, it: Item, end: usize, specs: Vec<Spec>) {
        tasks.push(Task::Finish { nt: it.nt as usize, alt: it.alt as usize, start: it.origin, end, n: specs.len() });
        tasks.extend(specs.into_iter().map(Task::Build));
    }

    /// Collects, right to left, the children before the dot of item `idx`
    /// of set `set`, following first back pointers.
    fn walk(&mut self, mut set: usize, mut idx: u32, specs: &mut Vec<Spec>) {
        loop {
            let it = self.sets[set].items[idx as usize];
            match self.sets[set].back[idx as usize] {
                Back::Start => return,
                Back::Scan { pred } => {
                    let Sym::T(t) = &self.p.symbols(it)[it.dot as usize - 1] else {
                        unreachable!("scanned over a nonterminal")
                    };
                    set -= t.len();
                    specs.push(Spec::Term { item: it, at: set });
                    idx = pred;
                }
                Back::Null { pred } => {
                    let Sym::N(nt) = self.p.symbols(it)[it.dot as usize - 1] else {
                        unreachable!("skipped a terminal")
                    };
                    specs.push(Spec::Empty { nt, at: set });
                    idx = pred;
                }
                Back::Complete { pred, child } => {
                    specs.push(Spec::Item { set, idx: child });
                    set = self.sets[set].items[child as usize].origin;
                    idx = pred;
                }
                Back::Leo { child } => {
                    let c = self.sets[set].items[child as usize];
                    let mut links = Vec::new();
                    let (mut o, mut b) = (c.origin, c.nt);
                    while let Some(w) = self.p.single(self.sets, o, b) {
                        links.push((o, w));
                        let wi = self.sets[o].items[w as usize];
                        (o, b) = (wi.origin, wi.nt);
                    }
                    let top = links.len() - 1;
                    debug_assert_eq!(self.sets[links[top].0].items[links[top].1 as usize].advanced(), it);
                    specs.push(match top {
                        0 => Spec::Item { set, idx: child },
                        _ => Spec::Chain { chain: self.chains.len(), level: top - 1 },
                    });
                    let next = links[top];
                    self.chains.push(Chain { end: set, child, links });
                    (set, idx) = next;
                }
            }
        }
    }
}

impl Parser<'_> {
    /// The canonical empty derivation of nullable `nt` at byte `at`.
    fn empty_tree(&self, nt: usize, at: usize) -> Node {
        let alt = self.empty[nt].expect("a nullable nonterminal");
        let children = self.g.rules[nt].alts[alt]
            .symbols
            .iter()
            .map(|s| match s {
                Sym::T(t) => Node::T { bytes: crate::Bytes::from_slice(t), start: at },
                Sym::N(m) => self.empty_tree(*m, at),
            })
            .collect();
        Node::N { nt, alt, children, start: at, end: at }
    }
}
