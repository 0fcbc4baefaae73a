//! Cheap hashes for the engines' own keys (valuations, final states, runtime configurations):
//! one multiply-rotate step per word, as in FxHash. The keys are never chosen by an adversary,
//! and every hit is compared exactly, so the hash only needs to spread them.

use std::hash::Hasher;

/// One mixing step: fold `word` into `h`.
fn mix(h: u64, word: u64) -> u64 {
    (h.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

/// A [`Hasher`] that mixes every value written (bytes eight at a time: slices of integers
/// arrive as one run of bytes).
#[derive(Default)]
pub struct Mix(u64);

impl Hasher for Mix {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let word: [u8; 8] = word.try_into().expect("chunks of eight");
            self.write_u64(u64::from_le_bytes(word));
        }
        for &b in words.remainder() {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = mix(self.0, x);
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A long key of words, over four interleaved lanes (independent chains run in parallel).
pub fn hash_words(key: &[u64]) -> u64 {
    let mut lanes = [key.len() as u64, 1, 2, 3];
    let mut chunks = key.chunks_exact(4);
    for chunk in &mut chunks {
        for (lane, &w) in lanes.iter_mut().zip(chunk) {
            *lane = mix(*lane, w);
        }
    }
    for (lane, &w) in lanes.iter_mut().zip(chunks.remainder()) {
        *lane = mix(*lane, w);
    }
    lanes.iter().fold(0, |h, &lane| mix(h, lane))
}

/// For tables keyed by a hash already computed ([`hash_words`]): the key is its own hash.
#[derive(Default)]
pub struct Identity(u64);

impl Hasher for Identity {
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 hashes are hashed again")
    }

    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
