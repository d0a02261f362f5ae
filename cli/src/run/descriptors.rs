//! The descriptors proctor inherited from its parent (a shell's, a CI runner's): none of
//! them may reach an agent.

/// Closes every descriptor above stderr that this process inherited: what proctor's
/// parent left open (a shell's, a CI runner's) must not reach an agent. Call first
/// thing, before anything of proctor's own is open (proctor's own descriptors are
/// close-on-exec).
pub fn close_inherited_descriptors() {
    for fd in inherited_descriptors() {
        // Safe on a bare number: nothing in this process owns it yet.
        let _ = nix::unistd::close(fd);
    }
}

/// The descriptors above stderr open now (the listing's own is closed by return).
pub fn inherited_descriptors() -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return Vec::new();
    };
    let listing: Vec<i32> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|fd| *fd > 2)
        .collect();
    // The last one listed may be the listing's own, now closed.
    listing
        .into_iter()
        .filter(|fd| std::path::Path::new(&format!("/proc/self/fd/{fd}")).exists())
        .collect()
}
