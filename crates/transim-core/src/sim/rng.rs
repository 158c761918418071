//! Seeded random streams. Every random process (each loss model, each flow's jitter…) owns a
//! stream derived from the scenario seed and a stable name, so adding a flow or a link never
//! perturbs another process's draws. The generator is xoshiro256++, seeded through SplitMix64.

/// SplitMix64 step: used to expand seeds.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a hash of a stream name given in pieces (hashed as if joined): stable across
/// platforms and Rust versions.
fn name_hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in parts.iter().flat_map(|p| p.bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// A xoshiro256++ random stream.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// The stream called `name` under scenario seed `seed`.
    pub fn stream(seed: u64, name: &str) -> Self {
        Self::stream_joined(seed, &[name])
    }

    /// The stream whose name is the concatenation of `parts` (the same stream as
    /// [`Rng::stream`] of the joined name, without building it).
    pub fn stream_joined(seed: u64, parts: &[&str]) -> Self {
        let mut st = seed ^ name_hash(parts).rotate_left(17);
        let mut s = [0u64; 4];
        for x in &mut s {
            *x = splitmix64(&mut st);
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng { s }
    }

    /// Next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_in_pieces_is_the_joined_name() {
        let mut a = Rng::stream(7, "loss/h1->r1");
        let mut b = Rng::stream_joined(7, &["loss/", "h1->r1"]);
        let mut c = Rng::stream_joined(7, &["loss/h1", "->r1"]);
        for _ in 0..8 {
            let x = a.next_u64();
            assert_eq!(x, b.next_u64());
            assert_eq!(x, c.next_u64());
        }
        let mut d = Rng::stream_joined(7, &["aqm/", "h1->r1"]);
        assert_ne!(Rng::stream(7, "loss/h1->r1").next_u64(), d.next_u64());
    }

    #[test]
    fn streams_are_reproducible_and_independent_by_name() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, "loss/0");
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, "loss/0");
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, "loss/1");
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = Rng::stream(1, "u");
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.uniform()).sum::<f64>() / n as f64;
        // Standard error is sqrt(1/12/n) ≈ 0.00065; allow 5 sigma.
        assert!((m - 0.5).abs() < 0.0033, "mean {m}");
    }
}
