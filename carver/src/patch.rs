//! Putting a new value into a parameter of a unit: an argument's bits, a
//! string's bytes (the object grows or shrinks; pointers into and out of it
//! past the string move with it), a stream's content, or a new word of
//! `main`'s command line (see `words`).

use model::snapshot::*;
pub use model::unit::Value;
use model::unit::{Site, Unit};

/// `unit` with `value` at `site`; `None` when the value does not fit it.
pub fn apply(unit: &Unit, site: &Site, value: &Value) -> Option<Unit> {
    let mut u = unit.clone();
    let s = &mut u.snapshot;
    match (site, value) {
        (Site::Arg { index, size }, Value::Int(v)) => {
            let a = s.args.get_mut(*index as usize)?;
            let mask = if *size >= 8 { u64::MAX } else { (1u64 << (8 * *size as u32)) - 1 };
            a.value = (*v as u64) & mask;
        }
        (Site::InputFile, Value::Bytes(b)) => u.meta.input_content = b.clone(),
        // Empty: no word, the unit as it is.
        (Site::NewWord { .. }, Value::Bytes(b)) if b.first().is_none_or(|&c| c == 0) => {}
        (Site::NewWord { argv, word, slot }, Value::Bytes(b)) => {
            let argc = s.args.first()?.value as u32;
            if *slot > argc || s.objects.get(*argv as usize)?.1.len() < (argc as usize + 2) * 8 {
                return None;
            }
            let (h, bytes) = s.objects.get_mut(*word as usize)?;
            *bytes = b.clone();
            if bytes.last() != Some(&0) {
                bytes.push(0);
            }
            h.size = bytes.len() as u64;
            h.len = h.size;
            let at = u64::from(*slot) * 8;
            for r in s.relocs.iter_mut().filter(|r| r.object == *argv && r.offset >= at) {
                r.offset += 8;
            }
            s.relocs.push(Reloc { object: *argv, offset: at, target_kind: RELOC_OBJECT, target: *word, addend: 0 });
            s.args[0].value = u64::from(argc + 1);
        }
        (Site::Stream { object }, Value::Bytes(b)) => {
            let (h, bytes) = s.objects.get_mut(*object as usize)?;
            *bytes = b.clone();
            h.size = b.len() as u64;
            h.len = b.len() as u64;
        }
        (Site::Bytes { object, offset, len, nul }, Value::Bytes(b)) => {
            let o = *object as usize;
            let (start, old_end) = (*offset as usize, (*offset + *len) as usize);
            let (h, bytes) = s.objects.get_mut(o)?;
            if old_end > bytes.len() || h.kind == OBJ_GLOBAL && b.len() + usize::from(*nul) > h.size as usize {
                return None;
            }
            let mut new = b.clone();
            if *nul && bytes.get(old_end) != Some(&0) {
                new.push(0);
            }
            let delta = new.len() as i64 - (old_end - start) as i64;
            bytes.splice(start..old_end, new);
            h.len = bytes.len() as u64;
            h.size = (h.size as i64 + delta).max(h.len as i64) as u64;
            for r in s.relocs.iter_mut() {
                if r.object == *object && r.offset >= old_end as u64 {
                    r.offset = (r.offset as i64 + delta) as u64;
                }
                if r.target_kind == RELOC_OBJECT && r.target == *object && r.addend >= old_end as u64 {
                    r.addend = (r.addend as i64 + delta) as u64;
                }
            }
            // A pointer that fell inside the replaced bytes no longer points
            // at anything sensible: keep it only if it still lies inside.
            let size = h.size;
            s.relocs.retain(|r| r.object != *object || r.offset + 8 <= size);
        }
        _ => return None,
    }
    Some(u)
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::unit::Snapshot;

    #[test]
    fn strings_grow_and_pointers_after_them_move() {
        let snapshot = Snapshot {
            args: vec![Arg { kind: ARG_INT, size: 4, value: 5 }],
            objects: vec![(
                ObjectHead { kind: OBJ_HEAP, global: NO_GLOBAL, addr: 0, size: 16, len: 16 },
                b"ab\0\0\0\0\0\0XXXXXXXX".to_vec(),
            )],
            relocs: vec![Reloc { object: 0, offset: 8, target_kind: RELOC_OBJECT, target: 0, addend: 8 }],
            ..Snapshot::default()
        };
        let u = Unit { snapshot, ..Unit::default() };
        let site = Site::Bytes { object: 0, offset: 0, len: 2, nul: true };
        let v = apply(&u, &site, &Value::Bytes(b"abcd".to_vec())).unwrap();
        let (h, bytes) = &v.snapshot.objects[0];
        assert_eq!(&bytes[..5], b"abcd\0");
        assert_eq!((h.size, h.len), (18, 18));
        assert_eq!((v.snapshot.relocs[0].offset, v.snapshot.relocs[0].addend), (10, 10));
        let w = apply(&u, &Site::Arg { index: 0, size: 4 }, &Value::Int(i32::MIN as i64)).unwrap();
        assert_eq!(w.snapshot.args[0].value, 0x8000_0000);
        assert!(apply(&u, &Site::Arg { index: 3, size: 4 }, &Value::Int(1)).is_none());
    }
}
