//! `ab`: enhance silly issues in ASCII string handling.
//!
//! It inserts format strings, very long runs of a byte, NULs, shell metacharacters,
//! backslashes, quotes, path traversal, or mixes up line endings.

use super::ctx::Ctx;

/// Strings that C string handling gets wrong.
const STRESSORS: &[&[u8]] = &[
    // printf-style format strings
    b"%n",
    b"%s",
    b"%x%x%x%x%n",
    b"%s%s%s%s%s%s%s%s",
    b"%99999999s",
    b"%.2147483647d",
    b"%-2147483648x",
    b"%p%p%p%p",
    b"%%",
    b"%",
    // NULs, real and escaped
    b"\0",
    b"\\0",
    b"\\x00",
    b"%00",
    b"\\u0000",
    // shell metacharacters
    b"$(id)",
    b"`id`",
    b";id;",
    b"|id",
    b"&&",
    b"||",
    b"${HOME}",
    b"$IFS",
    b"*",
    b"~",
    // backslashes and quotes
    b"\\",
    b"\\\\",
    b"\\\\\\\\\\\\\\\\",
    b"\\\"",
    b"\\'",
    b"\"",
    b"'",
    b"`",
    b"\"'\"'",
    // paths
    b"../",
    b"../../../../../../../../etc/passwd",
    b"..\\..\\..\\",
    b"%2e%2e%2f",
    // `/dev/null`, not `/dev/zero`: as an operand of a program that reads
    // its files to the end, `/dev/zero` is a hang every time,
    // and each costs a recheck under the full time limit.
    b"/dev/null",
    b"//",
    // line endings
    b"\r",
    b"\r\n",
    b"\n\r",
    b"\r\r\n",
];

/// Bytes worth repeating a very long time.
const RUNS: &[u8] = b"Aa0 /\\%'\"\n\t.,;:-+~*";

/// Where to put a stressor: at a gap, moved to the end of the text run it falls in
/// half the time (strings often break at their end).
fn spot(ctx: &mut Ctx<'_>, data: &[u8]) -> usize {
    let mut p = ctx.gap(data.len());
    if ctx.chance(1, 2) {
        while p < data.len() && data[p].is_ascii_alphanumeric() {
            p += 1;
        }
    }
    p
}

/// `ab`: insert one stressor, a repetition of one, or a very long run of a byte, or mix up
/// line endings.
pub(crate) fn ascii_bad(ctx: &mut Ctx<'_>, data: &mut Vec<u8>) -> bool {
    let room = ctx.room(data.len());
    let insert: Vec<u8> = match ctx.below(8) {
        0..=3 => STRESSORS[ctx.below(STRESSORS.len())].to_vec(),
        4 => {
            let s = STRESSORS[ctx.below(STRESSORS.len())];
            s.repeat(ctx.small((room / s.len()).clamp(1, 1024)))
        }
        5..=6 => {
            let len = 1usize << (4 + ctx.below(13)); // 16 bytes to 64 KiB
            vec![RUNS[ctx.below(RUNS.len())]; len.min(room)]
        }
        _ => {
            // Mix line endings: a `\n` becomes `\r`, `\r\n` or `\n\r`.
            let from = ctx.pos(data.len().max(1));
            let nl = (from..data.len()).chain(0..from).find(|&i| data[i] == b'\n');
            if let Some(i) = nl {
                let with: &[u8] = [&b"\r"[..], b"\r\n", b"\n\r"][ctx.below(3)];
                if with.len() - 1 <= room {
                    data.splice(i..i + 1, with.iter().copied());
                    return true;
                }
            }
            b"\r\n".to_vec()
        }
    };
    if insert.is_empty() || insert.len() > room {
        return false;
    }
    let p = spot(ctx, data);
    data.splice(p..p, insert);
    true
}

#[cfg(test)]
mod tests {
    use super::super::ctx::testing::run;
    use super::*;

    #[test]
    fn inserts_stressors() {
        let input = b"name=bob\nage=12\n";
        let mut format = false;
        let mut long = false;
        let mut crlf = false;
        for seed in 0..500 {
            let (ok, out) = run(ascii_bad, input, seed);
            assert!(ok);
            assert_ne!(out, input);
            assert!(out.len() <= 64 << 10);
            format |= out.windows(2).any(|w| w == b"%n" || w == b"%s");
            // A long run fills the room a test has to grow.
            long |= out.len() >= super::super::size_limit(input.len()) / 2;
            crlf |= out.windows(2).any(|w| w == b"\r\n" || w == b"\n\r");
        }
        assert!(format && long && crlf);
    }

    #[test]
    fn works_on_empty_input() {
        for seed in 0..50 {
            let (ok, out) = run(ascii_bad, b"", seed);
            assert!(ok && !out.is_empty());
        }
    }
}
