//! Sequence mutators: repeat a run of bytes (possibly many times), or delete one.

use super::ctx::Ctx;

/// `sr`: repeat a sequence of bytes, a few times or many.
pub(crate) fn repeat_seq(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let room = ctx.room(data.len());
    if data.is_empty() || room == 0 {
        return false;
    }
    let start = ctx.pos(data.len());
    let len = ctx.small((data.len() - start).min(1 << 12)).min(room);
    let times = ctx.small((room / len).min(1 << 10));
    let end = start + len;
    let seq = data[start..end].to_vec();
    data.splice(end..end, seq.iter().copied().cycle().take(len * times));
    true
}

/// `sd`: delete a sequence of bytes.
pub(crate) fn delete_seq(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    if data.is_empty() {
        return false;
    }
    let start = ctx.pos(data.len());
    let len = ctx.small(data.len() - start);
    data.drain(start..start + len);
    true
}

#[cfg(test)]
mod tests {
    use super::super::ctx::testing::run;
    use super::*;

    #[test]
    fn repeat_keeps_prefix_and_suffix() {
        let input = b"0123456789";
        for seed in 0..100 {
            let (ok, out) = run(repeat_seq, input, seed);
            assert!(ok);
            assert!(out.len() > input.len());
            assert!(out.len() <= 64 << 10);
            // The first byte and the last byte survive; the output is a superset.
            assert_eq!(out[0], b'0');
            assert_eq!(*out.last().unwrap(), b'9');
        }
    }

    #[test]
    fn delete_shrinks() {
        for seed in 0..100 {
            let (ok, out) = run(delete_seq, b"0123456789", seed);
            assert!(ok);
            assert!(out.len() < 10);
        }
        assert_eq!(run(delete_seq, b"", 0), (false, vec![]));
        assert_eq!(run(repeat_seq, b"", 0), (false, vec![]));
    }
}
