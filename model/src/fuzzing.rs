//! Mutation fuzzing of decoders, for the tests that feed every decoder of
//! a file the tools read damaged copies of a valid one (and for
//! `scripts/bench/decoders.sh`, which runs a million inputs each): each
//! input must be an error or a value, never a panic.

/// xorshift64*: deterministic, no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn word(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.word() % n.max(1) as u64) as usize
    }
}

/// Values that sit on boundaries of lengths, counts and widths.
const INTERESTING: [u64; 10] = [0, 1, 7, 8, 63, 64, 255, 0xffff, 0x7fff_ffff, u64::MAX];

/// `seed` with one to eight random edits.
pub fn mutate(seed: &[u8], r: &mut Rng) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + r.below(8) {
        let at = r.below(b.len() + 1);
        match r.below(7) {
            0 if at < b.len() => b[at] ^= 1 << r.below(8),
            1 if at < b.len() => b[at] = r.word() as u8,
            2 => {
                let n = 1 + r.below(16);
                let bytes: Vec<u8> = (0..n).map(|_| r.word() as u8).collect();
                b.splice(at..at, bytes);
            }
            3 => {
                let end = (at + 1 + r.below(16)).min(b.len());
                b.drain(at.min(end)..end);
            }
            4 => b.truncate(at),
            5 => {
                // A field overwritten with an interesting value.
                let v = INTERESTING[r.below(INTERESTING.len())].to_le_bytes();
                let w = [1, 4, 8][r.below(3)];
                for (k, &x) in v[..w].iter().enumerate() {
                    if let Some(y) = b.get_mut(at + k) {
                        *y = x;
                    }
                }
            }
            _ => {
                // A slice of the file copied elsewhere in it.
                if !b.is_empty() {
                    let from = r.below(b.len());
                    let n = (1 + r.below(32)).min(b.len() - from);
                    let piece = b[from..from + n].to_vec();
                    b.splice(at..at, piece);
                }
            }
        }
    }
    b
}

/// Runs `decode` on `inputs` mutations of `seed` (wrapped by `wrap`):
/// (accepted, rejected, panicked).
pub fn fuzz(
    name: &str,
    seed: &[u8],
    wrap: &dyn Fn(Vec<u8>) -> Vec<u8>,
    decode: &dyn Fn(&[u8]) -> bool,
    inputs: usize,
) -> usize {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
    let (mut ok, mut err, mut panics) = (0usize, 0usize, 0usize);
    // The seed itself decodes.
    assert!(decode(&wrap(seed.to_vec())), "{name}: the seed does not decode");
    for _ in 0..inputs {
        let bytes = wrap(mutate(seed, &mut r));
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decode(&bytes))) {
            Ok(true) => ok += 1,
            Ok(false) => err += 1,
            Err(_) => {
                panics += 1;
                eprintln!("{name}: panic on {bytes:02x?}");
            }
        }
    }
    println!("| {name} | {inputs} | {ok} | {err} | {panics} |");
    panics
}

/// Inputs per decoder: `DECODER_FUZZ_INPUTS`, default 20 000 (a fraction
/// of a second).
pub fn inputs() -> usize {
    std::env::var("DECODER_FUZZ_INPUTS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000)
}
