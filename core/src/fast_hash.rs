//! The hasher for the maps of hot loops: task ids looked up once per outcome line. The keys
//! are ids and names from the user's own files, not input chosen to collide, so SipHash's
//! protection is not needed there; a fixed seed keeps runs reproducible.

/// Builds foldhash's fast hashers with a fixed seed: `HashMap<K, V, FastBuild>`.
pub(crate) type FastBuild = foldhash::fast::FixedState;
