//! A fast hasher for the maps of hot loops: task ids looked up once per outcome line,
//! ledger rows grouped once per row. The keys are ids and names from the user's own
//! files, not input chosen to collide, so SipHash's protection is not needed there.

use std::hash::Hasher;

/// A fast non-cryptographic hasher: eight bytes at a time, a multiply and rotate per word
/// (as rustc's FxHash), and a full avalanche at the end so that every input bit reaches
/// every output bit. Not for untrusted keys chosen to collide.
#[derive(Debug, Default, Clone, Copy)]
pub struct FastHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        // MurmurHash3's 64-bit finaliser.
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("eight bytes")));
        }
        let rest = chunks.remainder();
        // The last bytes as a little-endian word, gathered one by one: copying a slice of
        // varying length calls the C library's `memcpy`, which costs more than this.
        let last = rest
            .iter()
            .enumerate()
            .fold(0u64, |word, (at, &byte)| word | u64::from(byte) << (8 * at));
        self.add(last ^ ((bytes.len() as u64) << 56));
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

/// Builds [`FastHasher`]s: `HashMap<K, V, FastBuild>`.
pub type FastBuild = std::hash::BuildHasherDefault<FastHasher>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    fn hash(parts: &[&[u8]]) -> u64 {
        let mut h = FastHasher::default();
        for p in parts {
            h.write(p);
            h.write_u8(0xff);
        }
        h.finish()
    }

    #[test]
    fn fast_hashes_of_near_identical_keys_do_not_collide() {
        let mut seen = HashSet::new();
        for second in 0..200_000u32 {
            let stamp = format!(
                "2026-11-{:02}T{:02}:{:02}:{:02}Z",
                1 + second / 86_400 % 28,
                second / 3600 % 24,
                second / 60 % 60,
                second % 60
            );
            for task in ["t1", "t10"] {
                assert!(seen.insert(hash(&[stamp.as_bytes(), b"run1", task.as_bytes(), b"0"])));
            }
        }
        // Field boundaries count: ("ab", "c") is not ("a", "bc").
        assert_ne!(hash(&[b"ab", b"c"]), hash(&[b"a", b"bc"]));
    }

    #[test]
    fn the_last_bytes_are_read_as_a_zero_padded_little_endian_word() {
        let mut by_write = FastHasher::default();
        by_write.write(b"abcdefghij");
        let mut by_words = FastHasher::default();
        by_words.add(u64::from_le_bytes(*b"abcdefgh"));
        by_words.add(u64::from_le_bytes([b'i', b'j', 0, 0, 0, 0, 0, 0]) ^ (10 << 56));
        assert_eq!(by_write.finish(), by_words.finish());
    }

    #[test]
    fn a_map_built_on_it_finds_every_key_it_holds() {
        let map: HashMap<String, usize, FastBuild> =
            (0..5000).map(|i| (format!("refund_A{i}"), i)).collect();
        for i in 0..5000 {
            assert_eq!(map.get(format!("refund_A{i}").as_str()), Some(&i));
        }
        assert_eq!(map.get("refund_A5000"), None);
    }
}
