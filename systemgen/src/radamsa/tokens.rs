//! Dictionary mutators: put one of the target's tokens (the constants its
//! code compares with, or a dictionary file's entries) into the test.
//! Neither applies when there is no dictionary.

use super::ctx::Ctx;

/// A token, or none when there is no dictionary or the test has no room.
fn token<'a>(ctx: &mut Ctx<'a>) -> Option<&'a [u8]> {
    if ctx.tokens.is_empty() {
        return None;
    }
    let t = &ctx.tokens[ctx.below(ctx.tokens.len())];
    (!t.is_empty()).then_some(&t[..])
}

/// `ti`: insert a token between two bytes.
pub(crate) fn insert_token(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let Some(t) = token(ctx) else { return false };
    if ctx.room(data.len()) < t.len() {
        return false;
    }
    let p = ctx.gap(data.len());
    data.splice(p..p, t.iter().copied());
    true
}

/// `to`: write a token over the bytes at a place (the test grows when it
/// runs past the end).
pub(crate) fn overwrite_token(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    if data.is_empty() {
        return false;
    }
    let Some(t) = token(ctx) else { return false };
    let p = ctx.pos(data.len());
    let end = (p + t.len()).min(data.len());
    if ctx.room(data.len()) < p + t.len() - end {
        return false;
    }
    data.splice(p..end, t.iter().copied());
    true
}

#[cfg(test)]
mod tests {
    use super::super::ctx::testing::run_with_tokens;
    use super::*;

    #[test]
    fn a_token_is_inserted_or_written_whole() {
        let tokens = [b"_".to_vec(), b"while".to_vec()];
        for seed in 0..50 {
            let (ok, out) = run_with_tokens(insert_token, b"2 3 + p", &tokens, seed);
            assert!(ok);
            let grew = out.len() - 7;
            assert!(grew == 1 || grew == 5, "{out:?}");
            assert!(out.windows(grew).any(|w| tokens.iter().any(|t| t[..] == *w)));
            let (ok, out) = run_with_tokens(overwrite_token, b"2 3 + p", &tokens, seed);
            assert!(ok);
            assert!(out.len() >= 7);
            assert!(out.windows(1).any(|w| w == b"_") || out.windows(5).any(|w| w == b"while"), "{out:?}");
        }
    }

    #[test]
    fn without_a_dictionary_nothing_applies() {
        let (ok, out) = run_with_tokens(insert_token, b"abc", &[], 1);
        assert!(!ok);
        assert_eq!(out, b"abc");
        let (ok, out) = run_with_tokens(overwrite_token, b"abc", &[], 1);
        assert!(!ok);
        assert_eq!(out, b"abc");
    }
}
