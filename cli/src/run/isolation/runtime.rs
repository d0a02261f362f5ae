//! The system's read-only runtime that every contained command is shown
//! (docs/agent-protocol.md, "What an agent sees"): the folders programs and their
//! libraries are installed in, and of `/etc` only what programs read to start, resolve
//! names, speak TLS and tell the time. Never a secret: no `/etc/shadow`, `gshadow`,
//! `ssl/private`, `ssh`, `sudoers` or package-manager credentials.
//!
//! The list is what is shown, not what is hidden: a folder of `/` that is not here
//! (`/srv`, `/opt`, `/var`, `/home`, `/root`, `/mnt`, `/data`) is not seen at all.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Folders of `/` holding installed programs and libraries (on merged-`/usr` systems
/// all but `/usr` are links into it).
const FOLDERS: [&str; 7] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];

/// Entries of `/etc` programs need to start and work, where they exist.
const ETC: [&str; 40] = [
    // The dynamic linker.
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    // Names: users, hosts, services, the resolver.
    "nsswitch.conf",
    "passwd",
    "group",
    "hosts",
    "host.conf",
    "hostname",
    "resolv.conf",
    "gai.conf",
    "networks",
    "protocols",
    "services",
    "rpc",
    "shells",
    // Time and language.
    "localtime",
    "timezone",
    "locale.alias",
    "locale.conf",
    // TLS: the public certificates, never `ssl/private`.
    "ssl/certs",
    "ssl/openssl.cnf",
    "ca-certificates",
    "ca-certificates.conf",
    "pki/tls/certs",
    "pki/ca-trust",
    "crypto-policies",
    // What installed programs read: Debian's alternatives (`python3`, `java`), the
    // interpreter's site configuration, file types, terminals.
    "alternatives",
    "python3",
    "mime.types",
    "magic",
    "magic.mime",
    "terminfo",
    "inputrc",
    "bash.bashrc",
    "fonts",
    "gitconfig",
    "os-release",
    "debian_version",
    "lsb-release",
];

/// Entries of `/etc` named by prefix: one folder per Python version (`python3.11`), and
/// the configuration a Java installation links to (`java-17-openjdk`).
const ETC_PREFIXES: [&str; 2] = ["python3.", "java-"];

/// One path of the runtime as the host has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A folder or file, shown read-only at its own path.
    Shown(PathBuf),
    /// A link kept as a link (`/bin -> usr/bin`, `/etc/mtab -> ../proc/self/mounts`):
    /// it points into what is shown, or into the namespace's own `/proc`.
    Link { path: PathBuf, target: PathBuf },
}

impl Entry {
    pub fn path(&self) -> &Path {
        match self {
            Entry::Shown(path) | Entry::Link { path, .. } => path,
        }
    }
}

/// The runtime of this host, read once.
pub fn entries() -> &'static [Entry] {
    static ENTRIES: OnceLock<Vec<Entry>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        let mut paths: Vec<PathBuf> = FOLDERS.iter().map(PathBuf::from).collect();
        paths.extend(ETC.iter().map(|name| Path::new("/etc").join(name)));
        paths.push(PathBuf::from("/etc/mtab"));
        if let Ok(names) = std::fs::read_dir("/etc") {
            let mut versioned: Vec<PathBuf> = names
                .flatten()
                .filter(|e| {
                    let name = e.file_name();
                    let name = name.to_string_lossy();
                    ETC_PREFIXES.iter().any(|p| name.starts_with(p))
                })
                .map(|e| e.path())
                .collect();
            versioned.sort();
            paths.extend(versioned);
        }
        paths.into_iter().filter_map(|path| entry(&path)).collect()
    })
}

/// `path` as the runtime shows it, or `None` where the host has nothing there.
fn entry(path: &Path) -> Option<Entry> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return Some(Entry::Shown(path.to_owned()));
    }
    let target = std::fs::read_link(path).ok()?;
    let resolved = path.parent()?.join(&target);
    // A link into `/usr` or `/proc` stays a link; any other (`/etc/resolv.conf` into
    // `/run`) is shown as what it points to, at the link's path.
    let inside = |root: &str| {
        normalize(&resolved).starts_with(root)
            && path.canonicalize().is_ok_and(|r| r.starts_with(root))
    };
    if inside("/usr") || normalize(&resolved).starts_with("/proc") {
        return Some(Entry::Link {
            path: path.to_owned(),
            target,
        });
    }
    path.exists().then(|| Entry::Shown(path.to_owned()))
}

/// `path` without `.` and `..` components, lexically (no link resolved).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Most entries [`copy_etc`] copies: `/etc`'s shown part is small (certificates,
/// alternatives, fonts); a larger one is bound entry by entry instead.
const MOST_ETC_ENTRIES: usize = 20_000;

/// Copies the shown entries of `/etc` into `into` (a new folder), so that bubblewrap
/// shows them with one mount rather than one per entry (each costs every attempt a
/// pass over the mount table). Links are copied as links: they point into
/// `/usr`, `/proc` or the copy itself, as they do on the host.
pub fn copy_etc(into: &Path) -> std::io::Result<()> {
    std::fs::create_dir(into)?;
    let mut budget = MOST_ETC_ENTRIES;
    for entry in entries() {
        let Ok(inside) = entry.path().strip_prefix("/etc") else {
            continue;
        };
        let target = into.join(inside);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        match entry {
            Entry::Link { target: link, .. } => std::os::unix::fs::symlink(link, &target)?,
            // A shown link (`resolv.conf` into `/run`) is copied as what it points to.
            Entry::Shown(path) => copy_tree(path, &target, &mut budget)?,
        }
    }
    Ok(())
}

/// `from` copied to `to`, links as links, files with their permissions; FIFOs, sockets
/// and devices left out.
fn copy_tree(from: &Path, to: &Path, budget: &mut usize) -> std::io::Result<()> {
    *budget = budget
        .checked_sub(1)
        .ok_or_else(|| std::io::Error::other("too many entries in /etc to copy"))?;
    let meta = std::fs::metadata(from)?;
    if meta.is_file() {
        std::fs::copy(from, to)?;
        return Ok(());
    }
    if !meta.is_dir() {
        return Ok(());
    }
    std::fs::create_dir(to)?;
    for child in std::fs::read_dir(from)? {
        let child = child?;
        let (source, target) = (child.path(), to.join(child.file_name()));
        if child.file_type()?.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
        } else {
            copy_tree(&source, &target, budget)?;
        }
    }
    Ok(())
}

/// True when `path` lies in the runtime (so it is shown already, read-only).
pub fn holds(path: &Path) -> bool {
    entries().iter().any(|entry| match entry {
        Entry::Shown(shown) => path.starts_with(shown),
        Entry::Link { .. } => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_of_etc_are_never_part_of_it() {
        for entry in entries() {
            let path = entry.path();
            for secret in [
                "/etc/shadow",
                "/etc/gshadow",
                "/etc/ssl/private",
                "/etc/ssh",
                "/etc/sudoers",
            ] {
                assert!(
                    !Path::new(secret).starts_with(path),
                    "{} would show {secret}",
                    path.display()
                );
            }
            assert!(
                path.starts_with("/usr")
                    || path.starts_with("/etc")
                    || FOLDERS.iter().any(|f| path == Path::new(f)),
                "{}",
                path.display()
            );
        }
        assert!(holds(Path::new("/usr/bin/python3")));
        assert!(!holds(Path::new("/etc/shadow")));
        assert!(!holds(Path::new("/srv/project")));
    }

    #[test]
    fn the_copy_of_etc_holds_what_is_shown_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("etc");
        copy_etc(&copy).unwrap();
        for entry in entries() {
            let Ok(inside) = entry.path().strip_prefix("/etc") else {
                continue;
            };
            assert!(
                std::fs::symlink_metadata(copy.join(inside)).is_ok(),
                "{} missing",
                entry.path().display()
            );
        }
        assert!(!copy.join("shadow").exists());
        assert!(!copy.join("ssl/private").exists());
        if Path::new("/etc/passwd").is_file() {
            assert_eq!(
                std::fs::read(copy.join("passwd")).unwrap(),
                std::fs::read("/etc/passwd").unwrap()
            );
        }
    }

    #[test]
    fn links_into_usr_stay_links() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("bin");
        std::os::unix::fs::symlink("/usr/bin", &link).unwrap();
        assert_eq!(
            entry(&link),
            Some(Entry::Link {
                path: link.clone(),
                target: PathBuf::from("/usr/bin")
            })
        );
        let elsewhere = dir.path().join("resolv");
        std::fs::write(dir.path().join("real"), "nameserver 127.0.0.1\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("real"), &elsewhere).unwrap();
        assert_eq!(entry(&elsewhere), Some(Entry::Shown(elsewhere.clone())));
        assert_eq!(entry(&dir.path().join("missing")), None);
    }
}
