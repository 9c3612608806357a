//! The corpus as the grammar sees it: each entry parsed once into its
//! derivation tree (or found not to parse), the uses of every alternative
//! counted over the trees, and where each nonterminal occurs, for splices.

use std::collections::HashMap;

use grammar::{Counts, Derivation, Grammar, Parser};

/// Entries longer than this are not parsed (they count as not parsing):
/// a derivation tree is about as deep as its text is long.
pub const MAX_PARSE: usize = 16 << 10;

/// A parsed corpus entry.
pub struct Parsed {
    pub id: u64,
    pub tree: Derivation,
}

/// What the generator knows of the corpus.
pub struct Trees {
    /// Parsed entries, in the order they were first seen.
    pub parsed: Vec<Parsed>,
    /// Entry id -> index into `parsed` (`None`: does not parse).
    seen: HashMap<u64, Option<usize>>,
    /// Uses of each alternative over `parsed`.
    pub counts: Counts,
    /// Per nonterminal, the (entry, node number in pre-order) of each node
    /// expanding it.
    pub sites: Vec<Vec<(usize, usize)>>,
}

impl Trees {
    pub fn new(g: &Grammar) -> Trees {
        Trees {
            parsed: Vec::new(),
            seen: HashMap::new(),
            counts: Counts::new(g),
            sites: vec![Vec::new(); g.rules.len()],
        }
    }

    /// Parses the entries not seen yet; returns how many of them parsed.
    pub fn update<'a>(&mut self, parser: &Parser<'_>, entries: impl Iterator<Item = (u64, &'a [u8])>) -> usize {
        let mut added = 0;
        for (id, data) in entries {
            if self.seen.contains_key(&id) {
                continue;
            }
            let tree = if data.len() <= MAX_PARSE { parser.parse(data).ok() } else { None };
            let Some(tree) = tree else {
                self.seen.insert(id, None);
                continue;
            };
            let k = self.parsed.len();
            self.counts.add(&tree);
            let tree = Derivation::from_node(&tree);
            for (n, e) in tree.nodes().iter().enumerate() {
                self.sites[e.nt as usize].push((k, n));
            }
            self.parsed.push(Parsed { id, tree });
            self.seen.insert(id, Some(k));
            added += 1;
        }
        added
    }

    /// The parsed entry with id `id`.
    pub fn get(&self, id: u64) -> Option<&Parsed> {
        self.seen.get(&id).copied().flatten().map(|k| &self.parsed[k])
    }

    /// Entries seen that do not parse.
    pub fn unparsed(&self) -> usize {
        self.seen.values().filter(|v| v.is_none()).count()
    }
}
