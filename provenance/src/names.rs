//! The names a campaign gives its tests, AFL's way: `id:000042,src:000007,
//! op:nd_num+ld` for a generated test (its parent and the operators that
//! made it), `id:000000,orig:NAME` for a seed; crashes add `sig:NN`; a
//! splice names its other parents after the first (`src:000007+000012`).

/// What a test's name says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub id: u64,
    /// The queue entry it was made from; `None` for a seed.
    pub parent: Option<u64>,
    /// Other queue entries it took bytes from (a splice: `src:P+D`).
    pub donors: Vec<u64>,
    /// The operators that made it (empty for a seed).
    pub ops: Vec<String>,
    /// A seed's original file name.
    pub seed: Option<String>,
}

/// Reads a test's file name; `None` when it is not one.
pub fn parse(name: &str) -> Option<Name> {
    let mut n = Name { id: u64::MAX, parent: None, donors: Vec::new(), ops: Vec::new(), seed: None };
    // `orig:` and `op:` run to the end of the name (a seed's file name, or
    // operators, may hold commas).
    let mut rest = name;
    while !rest.is_empty() {
        let (field, more) = if rest.starts_with("orig:") || rest.starts_with("op:") {
            (rest, "")
        } else {
            rest.split_once(',').unwrap_or((rest, ""))
        };
        let (key, value) = field.split_once(':')?;
        match key {
            "id" => n.id = value.parse().ok()?,
            "src" => {
                let mut ids = value.split('+');
                n.parent = Some(ids.next()?.parse().ok()?);
                n.donors = ids.map(|d| d.parse().ok()).collect::<Option<_>>()?;
            }
            "op" => n.ops = value.split('+').filter(|o| !o.is_empty()).map(str::to_string).collect(),
            "orig" => n.seed = Some(value.to_string()),
            _ => {}
        }
        rest = more;
    }
    (n.id != u64::MAX && (n.parent.is_some() || n.seed.is_some())).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_give_their_parent_and_operators() {
        let q = parse("id:000042,src:000007,op:nd_num+ld").unwrap();
        assert_eq!((q.id, q.parent, q.ops.clone()), (42, Some(7), vec!["nd_num".to_string(), "ld".to_string()]));
        let s = parse("id:000000,orig:a,b file").unwrap();
        assert_eq!((s.parent, s.seed.as_deref()), (None, Some("a,b file")));
        let c = parse("id:000003,sig:11,src:000042,op:lift_main+word").unwrap();
        assert_eq!((c.id, c.parent, c.ops[0].as_str()), (3, Some(42), "lift_main"));
        let splice = parse("id:000009,src:000002+000005,op:ft").unwrap();
        assert_eq!((splice.parent, splice.donors), (Some(2), vec![5]));
        assert_eq!(parse("README"), None);
        assert_eq!(parse("id:x,src:1"), None);
    }
}
