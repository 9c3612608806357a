//! A word `main`'s command line does not have yet. When the test's first
//! line is the command line, `main`'s unit gets one more argv slot and an
//! empty word object; a value puts the word right after the words of that
//! line (the target's own arguments move up one, and `argc` grows by one)
//! and lifts as a blank and the word at the end of the line. So a unit
//! explorer can add an operand (`-`, a second file) or an option after
//! the operands (`-c`: getopt permutes), which no word the carving run had
//! can become.

use model::snapshot::*;
use model::unit::{Encoding, Param, Site, Unit};

/// Bytes the new word may take, its NUL included: room for a long option
/// such as `--serial`.
pub const WORD_LEN: u32 = 16;

/// Gives `main`'s `unit` room for one more word, at argv slot `slot` (1
/// plus the number of words of the input's first line), and returns the
/// parameter that holds it; `None` (and `unit` unchanged) for any other
/// unit, or when its argv array is not as the runtime records it.
pub fn make_room(unit: &mut Unit, input: &[u8], slot: usize) -> Option<Param> {
    let s = &mut unit.snapshot;
    if unit.meta.function != "main" || s.args.len() < 2 || s.args[0].kind != ARG_INT {
        return None;
    }
    let argc = s.args[0].value as u32 as usize;
    let argv = s
        .relocs
        .iter()
        .find(|r| r.object == RELOC_IN_ARG && r.offset == 1 && r.target_kind == RELOC_OBJECT && r.addend == 0)?
        .target;
    let (h, bytes) = s.objects.get_mut(argv as usize)?;
    let ends_null = bytes.len() == (argc + 1) * 8 && bytes[argc * 8..].iter().all(|&b| b == 0);
    if h.kind != OBJ_ARGV || !ends_null || h.size != h.len || slot == 0 || slot > argc {
        return None;
    }
    bytes.extend_from_slice(&[0; 8]);
    h.size += 8;
    h.len += 8;
    let word = s.objects.len() as u32;
    let len = u64::from(WORD_LEN);
    s.objects.push((ObjectHead { kind: OBJ_ARGV, global: NO_GLOBAL, addr: 0, size: len, len }, vec![0; len as usize]));
    let line = input.iter().position(|&b| b == b'\n').unwrap_or(input.len());
    Some(Param {
        site: Site::NewWord { argv, word, slot: slot as u32 },
        encoding: Encoding::Raw,
        occurrences: vec![(line as u64, 0)],
        original: Vec::new(),
        excluded: Vec::new(),
        room: WORD_LEN,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::{apply, Value};
    use model::unit::{Meta, Snapshot};

    fn head(kind: u8, size: u64) -> ObjectHead {
        ObjectHead { kind, global: NO_GLOBAL, addr: 0x1000, size, len: size }
    }

    /// `main` of `prog -n`: argc 2, argv {word 1, word 2, NULL}.
    fn main_unit() -> Unit {
        let snapshot = Snapshot {
            name: "main".into(),
            args: vec![Arg { kind: ARG_INT, size: 4, value: 2 }, Arg { kind: ARG_PTR, size: 8, value: 0x1000 }],
            objects: vec![
                (head(OBJ_ARGV, 24), vec![0; 24]),
                (head(OBJ_ARGV, 5), b"prog\0".to_vec()),
                (head(OBJ_ARGV, 3), b"-n\0".to_vec()),
            ],
            relocs: vec![
                Reloc { object: RELOC_IN_ARG, offset: 1, target_kind: RELOC_OBJECT, target: 0, addend: 0 },
                Reloc { object: 0, offset: 0, target_kind: RELOC_OBJECT, target: 1, addend: 0 },
                Reloc { object: 0, offset: 8, target_kind: RELOC_OBJECT, target: 2, addend: 0 },
            ],
            ..Snapshot::default()
        };
        Unit { snapshot, meta: Meta { function: "main".into(), ..Meta::default() }, ..Unit::default() }
    }

    #[test]
    fn a_word_goes_after_the_last_and_lifts_after_a_blank() {
        let mut u = main_unit();
        let p = make_room(&mut u, b"-n\nbody", 2).unwrap();
        assert_eq!(p.site, Site::NewWord { argv: 0, word: 3, slot: 2 });
        assert_eq!(p.occurrences, vec![(2, 0)]);
        assert_eq!(u.snapshot.objects[0].1.len(), 32);
        // Empty: the unit as carved (argc 2, nothing in the new slot).
        let same = apply(&u, &p.site, &Value::Bytes(vec![0; 16])).unwrap();
        assert_eq!(same, u);
        assert_eq!(p.text(&Value::Bytes(vec![0; 16])), b"");
        let mut v = b"-c\0".to_vec();
        v.resize(16, 0);
        let w = apply(&u, &p.site, &Value::Bytes(v.clone())).unwrap();
        assert_eq!(w.snapshot.args[0].value, 3);
        assert_eq!(&w.snapshot.objects[3].1[..3], b"-c\0");
        let slot = Reloc { object: 0, offset: 16, target_kind: RELOC_OBJECT, target: 3, addend: 0 };
        assert!(w.snapshot.relocs.contains(&slot), "{:?}", w.snapshot.relocs);
        assert!(w.snapshot.patch_over(&u.snapshot).is_some());
        assert_eq!(p.text(&Value::Bytes(v)), b" -c");
    }

    #[test]
    fn the_targets_own_words_move_up_past_the_new_one() {
        // `prog -n` where the test's line was empty: `-n` is the target's.
        let mut u = main_unit();
        let p = make_room(&mut u, b"\nbody", 1).unwrap();
        let w = apply(&u, &p.site, &Value::Bytes(b"-".to_vec())).unwrap();
        let slots: Vec<(u64, u32)> =
            w.snapshot.relocs.iter().filter(|r| r.object == 0).map(|r| (r.offset, r.target)).collect();
        assert_eq!(slots, vec![(0, 1), (16, 2), (8, 3)]);
        assert_eq!(&w.snapshot.objects[3].1[..], b"-\0");
        assert_eq!(w.snapshot.args[0].value, 3);
    }

    #[test]
    fn only_main_with_its_argv_array_gets_a_word() {
        let mut other = main_unit();
        other.meta.function = "parse".into();
        assert!(make_room(&mut other, b"x", 1).is_none());
        let mut odd = main_unit();
        odd.snapshot.args[0].value = 5;
        assert!(make_room(&mut odd, b"x", 1).is_none());
        assert_eq!(odd, {
            let mut u = main_unit();
            u.snapshot.args[0].value = 5;
            u
        });
    }
}
