//! Which process holds the `flock` on a file, read from Linux's `/proc/locks`, so that a
//! refusal can name it ("being written by another proctor run (pid 4242)"), and `proctor view`
//! can tell a run still being written.

use std::fs::File;
use std::os::unix::fs::MetadataExt;

/// The pid holding a write `flock` on `file`, when the system lists one; `None` elsewhere
/// (another system, no `/proc`, a holder in a pid namespace this process cannot see).
pub fn holder(file: &File) -> Option<u32> {
    let meta = file.metadata().ok()?;
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    writer_in(&locks, meta.dev(), meta.ino())
}

/// The system's table of locks now (`/proc/locks`), to ask [`writer_in`] about many files.
pub fn locks_now() -> Option<String> {
    std::fs::read_to_string("/proc/locks").ok()
}

/// The pid of the first `FLOCK ... WRITE` line of `locks` on device `dev`, inode `ino`.
pub fn writer_in(locks: &str, dev: u64, ino: u64) -> Option<u32> {
    // The kernel prints `MAJOR:MINOR:INODE`, major and minor in hex, from the same device
    // number `stat` encodes this way.
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let wanted = format!("{major:02x}:{minor:02x}:{ino}");
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // `N: FLOCK ADVISORY WRITE PID DEV:INODE START END`; waiters have a `->` after `N:`.
        match fields.as_slice() {
            [_, "FLOCK", _, "WRITE", pid, at, ..] if *at == wanted => {
                pid.parse().ok().filter(|&pid| pid > 0)
            }
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_writer_of_one_inode_on_one_device() {
        let locks = "1: POSIX  ADVISORY  WRITE 7 fe:00:42 0 EOF\n\
                     2: FLOCK  ADVISORY  READ 8 fe:00:42 0 EOF\n\
                     3: FLOCK  ADVISORY  WRITE 9 fe:01:42 0 EOF\n\
                     3: -> FLOCK  ADVISORY  WRITE 11 fe:00:42 0 EOF\n\
                     4: FLOCK  ADVISORY  WRITE 10 fe:00:42 0 EOF\n";
        let dev = 0xfe << 8;
        assert_eq!(writer_in(locks, dev, 42), Some(10));
        assert_eq!(writer_in(locks, dev, 43), None);
        assert_eq!(writer_in(locks, dev | 1, 42), Some(9));
    }

    #[test]
    fn names_this_process_for_a_lock_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let file = File::create(&path).unwrap();
        file.try_lock().unwrap();
        if std::path::Path::new("/proc/locks").exists() {
            assert_eq!(holder(&file), Some(std::process::id()));
        }
    }
}
