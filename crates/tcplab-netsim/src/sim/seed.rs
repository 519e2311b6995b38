//! Deterministic derivation of per-component seeds from the run seed.
//!
//! Every random stream (each link direction's loss model) and every initial sequence number
//! is a pure function of `(run seed, domain, component ids)`, computed with SplitMix64
//! (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014; the
//! constants are those of `java.util.SplittableRandom`). Chaining the finaliser over each input
//! decorrelates neighbouring ids, so link 3's stream is unrelated to link 4's.

use rand_pcg::Pcg64Mcg;

/// SplitMix64 golden-ratio increment (2^64 / φ).
const SPLITMIX_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// Domain separator for link loss-model streams.
pub const DOMAIN_LOSS: u64 = 0x6c6f_7373; // "loss"
/// Domain separator for link reordering streams (`reorder`): a domain of its own, so adding
/// reordering to a link leaves its loss and spike streams, and every other link's, unchanged.
pub const DOMAIN_REORDER: u64 = 0x7265_6f72; // "reor"
/// Domain separator for initial sequence numbers.
pub const DOMAIN_ISS: u64 = 0x0069_7373; // "iss"

/// One SplitMix64 step: a bijective, well-mixing function of `x`.
#[inline]
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(SPLITMIX_GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `splitmix64(splitmix64(splitmix64(seed ^ domain) ^ a) ^ b)`.
pub fn derive(seed: u64, domain: u64, a: u64, b: u64) -> u64 {
    splitmix64(splitmix64(splitmix64(seed ^ domain) ^ a) ^ b)
}

/// The RNG of one link direction (`dir` 0 = a→b, 1 = b→a): a PCG-64 MCG whose 128-bit state is
/// two consecutive derived words.
pub fn link_rng(seed: u64, link: usize, dir: usize) -> Pcg64Mcg {
    let hi = derive(seed, DOMAIN_LOSS, link as u64, dir as u64);
    let lo = splitmix64(hi);
    Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(lo))
}

/// The reordering RNG of one link direction (`dir` 0 = a→b, 1 = b→a), built like [`link_rng`]
/// in the `DOMAIN_REORDER` domain.
pub fn reorder_rng(seed: u64, link: usize, dir: usize) -> Pcg64Mcg {
    let hi = derive(seed, DOMAIN_REORDER, link as u64, dir as u64);
    let lo = splitmix64(hi);
    Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(lo))
}

/// Uniform `f64` in [0, 1) from the top 53 bits of a 64-bit draw.
#[inline]
pub fn unit_f64(x: u64) -> f64 {
    (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        // Reference: SplittableRandom seeded with 0 yields 0xE220A8397B1DCDAF first.
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn the_two_directions_of_a_link_get_different_streams() {
        let mut a = link_rng(1, 0, 0);
        let mut b = link_rng(1, 0, 1);
        assert_ne!(a.next_u64(), b.next_u64());
    }
}
