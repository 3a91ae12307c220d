//! Per-component random streams.
//!
//! Every random component (a loss model, an AQM, an application) owns its own generator,
//! seeded from the scenario seed and the component's name. Adding a flow therefore never
//! perturbs the random numbers another component draws, and a run is reproducible from
//! `(seed, scenario)` alone. The generator is xoshiro256++ (Blackman & Vigna, 2019), seeded
//! through SplitMix64 as its authors recommend; the name is hashed with 64-bit FNV-1a.

/// xoshiro256++ generator.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// SplitMix64's increment, 2^64 / φ.
pub const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(GOLDEN_GAMMA);
    mix64(*state)
}

/// SplitMix64's output function: a bijection of 64-bit words whose every output bit depends on
/// every input bit (Steele, Lea and Flood 2014). Also the engine's tie shuffle (`engine/`).
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 64-bit FNV-1a of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

impl Rng {
    /// The stream of component `name` in a run with scenario seed `seed`.
    pub fn derive(seed: u64, name: &str) -> Rng {
        let mut st = seed ^ fnv1a(name.as_bytes()).rotate_left(17);
        let s = [
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
            splitmix64(&mut st),
        ];
        Rng { s }
    }

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

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p` (p ≤ 0 never, p ≥ 1 always).
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        let mut a = Rng::derive(7, "link:x");
        let mut b = Rng::derive(7, "link:x");
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn different_names_or_seeds_give_different_streams() {
        let a = Rng::derive(7, "link:x").next_u64();
        assert_ne!(a, Rng::derive(7, "link:y").next_u64());
        assert_ne!(a, Rng::derive(8, "link:x").next_u64());
    }

    #[test]
    fn bernoulli_frequency_is_close_to_p() {
        let mut r = Rng::derive(1, "t");
        let n = 200_000;
        let hits = (0..n).filter(|_| r.bernoulli(0.2)).count() as f64;
        // 5 sigma of a binomial(200000, 0.2) is about 894
        assert!((hits - 0.2 * n as f64).abs() < 900.0, "{hits}");
    }
}
