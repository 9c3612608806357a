//! Counts beside pointers, without a grammar: an integer argument next to
//! a pointer argument (`f(data, size)`, `f(size, data)`) whose value is
//! the length of an occurrence in the input of what that pointer points at
//! maps to that occurrence as its length ([`Encoding::Length`]). A new
//! value resizes the occurrence (cut, or repeated from its start), as with
//! a grammar (`align.rs`); the bytes there may change too, by the
//! pointer's own parameter. A libFuzzer harness's `size` is the first such
//! count: the length of the whole input.

use model::snapshot::{ARG_INT, RELOC_IN_ARG, RELOC_OBJECT};
use model::unit::{Encoding, Param, Site, Unit, MAX_LENGTH};

/// Smallest count taken: a 0 or a 1 beside a pointer says little.
const MIN_COUNT: i64 = 2;

/// Adds to `params` a length parameter for each integer argument of `unit`
/// that has none yet and counts the bytes its neighbouring pointer
/// argument's parameter occupies in the input. Returns how many it added.
pub fn beside_pointers(unit: &Unit, params: &mut Vec<Param>) -> usize {
    let s = &unit.snapshot;
    if unit.meta.function == "main" {
        return 0;
    }
    let mut added = 0;
    for (i, a) in s.args.iter().enumerate() {
        if a.kind != ARG_INT || a.size > 8 {
            continue;
        }
        let site = Site::Arg { index: i as u16, size: a.size };
        if params.iter().any(|p| p.site == site) {
            continue;
        }
        let n = crate::mapping::signed(a.value, a.size);
        if !(MIN_COUNT..=MAX_LENGTH).contains(&n) {
            continue;
        }
        // The pointer arguments on either side, as (object, offset).
        let pointers = s
            .relocs
            .iter()
            .filter(|r| r.object == RELOC_IN_ARG && r.target_kind == RELOC_OBJECT && r.offset.abs_diff(i as u64) == 1);
        let occurrence = pointers.flat_map(|r| counted(params, r.target, r.addend, n as u64)).next();
        if let Some(occ) = occurrence {
            params.push(length(site, occ, n));
            added += 1;
        }
    }
    added
}

/// Argument `site`, of value `n`, as the length of occurrence `occ`.
pub(crate) fn length(site: Site, occ: (u64, u64), n: i64) -> Param {
    Param {
        site,
        encoding: Encoding::Length,
        occurrences: vec![occ],
        original: n.to_string().into_bytes(),
        excluded: Vec::new(),
        room: 0,
    }
}

/// An occurrence of `n` bytes of a parameter of the bytes at `offset` of
/// `object` (a string or block written as itself, not a length).
fn counted(params: &[Param], object: u32, offset: u64, n: u64) -> Option<(u64, u64)> {
    params
        .iter()
        .filter(|p| matches!(p.site, Site::Bytes { object: o, offset: at, .. } if o == object && at == offset))
        .filter(|p| p.encoding == Encoding::Raw)
        .flat_map(|p| p.occurrences.iter().copied())
        .find(|&(_, len)| len == n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::snapshot::{Arg, Reloc, ARG_PTR};

    fn unit(function: &str, args: Vec<Arg>, relocs: Vec<Reloc>) -> Unit {
        let mut u = Unit::default();
        u.meta.function = function.into();
        u.snapshot.args = args;
        u.snapshot.relocs = relocs;
        u
    }

    fn data(object: u32, occ: (u64, u64)) -> Param {
        Param {
            site: Site::Bytes { object, offset: 0, len: occ.1, nul: false },
            encoding: Encoding::Raw,
            occurrences: vec![occ],
            original: vec![b'x'; occ.1 as usize],
            excluded: Vec::new(),
            room: 0,
        }
    }

    const fn int(v: u64) -> Arg {
        Arg { kind: ARG_INT, size: 8, value: v }
    }
    const PTR: Arg = Arg { kind: ARG_PTR, size: 8, value: 0 };
    fn to(arg: u64, object: u32) -> Reloc {
        Reloc { object: RELOC_IN_ARG, offset: arg, target_kind: RELOC_OBJECT, target: object, addend: 0 }
    }

    #[test]
    fn a_count_beside_a_pointer_maps_as_the_length_of_what_it_points_at() {
        // A harness: (data, size) with data the whole 12-byte input.
        let u = unit("LLVMFuzzerTestOneInput", vec![PTR, int(12)], vec![to(0, 3)]);
        let mut ps = vec![data(3, (0, 12))];
        assert_eq!(beside_pointers(&u, &mut ps), 1);
        assert_eq!(ps[1].site, Site::Arg { index: 1, size: 8 });
        assert_eq!(
            (ps[1].encoding, &ps[1].occurrences[..], &ps[1].original[..]),
            (Encoding::Length, &[(0, 12)][..], &b"12"[..])
        );
        // The count first: (size, data).
        let u = unit("f", vec![int(5), PTR], vec![to(1, 0)]);
        let mut ps = vec![data(0, (7, 5))];
        assert_eq!(beside_pointers(&u, &mut ps), 1);
        assert_eq!(ps[1].occurrences, [(7, 5)]);
    }

    #[test]
    fn only_a_neighbour_of_that_very_length_and_no_argument_mapped_already() {
        let mut ps = vec![data(3, (0, 12))];
        // Another length.
        assert_eq!(beside_pointers(&unit("f", vec![PTR, int(11)], vec![to(0, 3)]), &mut ps), 0);
        // Not next to the pointer.
        assert_eq!(beside_pointers(&unit("f", vec![PTR, int(1), int(12)], vec![to(0, 3)]), &mut ps), 0);
        // A pointer to another object.
        assert_eq!(beside_pointers(&unit("f", vec![PTR, int(12)], vec![to(0, 4)]), &mut ps), 0);
        // main's argc; counts of 0 and 1.
        assert_eq!(beside_pointers(&unit("main", vec![int(12), PTR], vec![to(1, 3)]), &mut ps), 0);
        let mut one = vec![data(3, (0, 1))];
        assert_eq!(beside_pointers(&unit("f", vec![PTR, int(1)], vec![to(0, 3)]), &mut one), 0);
        // An argument already mapped (its text is in the input) stays so.
        let mut mapped = vec![data(3, (0, 12)), Param { site: Site::Arg { index: 1, size: 8 }, ..data(9, (20, 2)) }];
        assert_eq!(beside_pointers(&unit("f", vec![PTR, int(12)], vec![to(0, 3)]), &mut mapped), 0);
        assert_eq!(mapped.len(), 2);
    }
}
