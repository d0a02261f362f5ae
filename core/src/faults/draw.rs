//! The random draw of a `probability` fault: a fixed hash, so that the same attempt
//! fires the same faults in every process, on every platform and in every version that
//! keeps this format (the unit tests pin its values).

use sha2::{Digest, Sha256};

/// A number in `[0, 1)` for one fault and one call: SHA-256 over a versioned,
/// length-prefixed encoding of the attempt seed, the fault's index in the task's list,
/// the tool's name and the call's number; the first 53 bits make the fraction.
pub fn fault_draw(attempt_seed: u64, fault_index: usize, tool: &str, call_number: u32) -> f64 {
    let mut hasher = Sha256::new();
    hasher.update(b"proctor.fault/1\0");
    hasher.update(attempt_seed.to_le_bytes());
    hasher.update((fault_index as u64).to_le_bytes());
    hasher.update((tool.len() as u64).to_le_bytes());
    hasher.update(tool.as_bytes());
    hasher.update(call_number.to_le_bytes());
    let digest = hasher.finalize();
    let word = u64::from_be_bytes(digest[..8].try_into().expect("eight bytes"));
    (word >> 11) as f64 / (1u64 << 53) as f64
}
