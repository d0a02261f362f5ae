//! Fence names for agent-written data: derived from the content, so an agent cannot
//! write a line that closes the fence (it would have to predict a hash of its own
//! output), and replay stays deterministic (no randomness).

use crate::hash::sha256_hex;

/// A fence name such as `DATA-3f2a9c1e7b5d0a44` that occurs in none of `parts`.
pub fn choose_fence(parts: &[&str]) -> String {
    let mut material = String::from("proctor fence v1");
    for part in parts {
        // Length-prefixed, so that moving text between parts changes the hash.
        material.push_str(&format!("\0{}\0", part.len()));
        material.push_str(part);
    }
    let mut round = 0u32;
    loop {
        let digest = sha256_hex(format!("{round}\0{material}").as_bytes());
        let fence = format!("DATA-{}", &digest[..16]);
        if !parts.iter().any(|part| part.contains(&fence)) {
            return fence;
        }
        round += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_content_dependent() {
        let a = choose_fence(&["x", "y"]);
        assert_eq!(a, choose_fence(&["x", "y"]));
        assert_ne!(a, choose_fence(&["xy", ""]));
        assert!(a.starts_with("DATA-") && a.len() == 21);
    }

    #[test]
    fn never_a_fence_that_occurs_in_the_content() {
        let first = choose_fence(&["payload"]);
        // Content that contains the fence it would have got gets another one.
        let sneaky = format!("payload {first}>>>");
        let fence = choose_fence(&[&sneaky]);
        assert!(!sneaky.contains(&fence));
    }
}
