//! What a contained command is shown besides the system's runtime (`runtime`), all of
//! it read-only (docs/agent-protocol.md, "What an agent sees"): what its command line
//! needs to start (its program's folder, the folders of the scripts it runs, every
//! other path it names, its interpreter's whole installation) and every
//! `--isolate-allow` path. Nothing else of the host.
//!
//! The folders a user chose (the program's and scripts' folders, named paths,
//! `--isolate-allow`) are walked for grading data (`grading_data`); an interpreter's
//! installation is shown as it is.

use super::runtime;
use crate::run::agent::AgentSpec;
use std::path::{Path, PathBuf};

/// One path shown to a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub path: PathBuf,
    /// Walked for proctor's own files to hide (`grading_data`).
    pub walked: bool,
}

/// Folders of a home where interpreter managers keep their versions and shims.
const MANAGERS: [&str; 12] = [
    ".pyenv", ".rbenv", ".nodenv", ".goenv", ".jenv", ".nvm", ".volta", ".asdf", ".sdkman", ".bun",
    ".deno", ".juliaup",
];

/// File endings of scripts an interpreter runs: their whole folder is shown, since a
/// script imports what lies beside it.
const SCRIPTS: [&str; 14] = [
    "py", "pyc", "js", "mjs", "cjs", "ts", "rb", "pl", "sh", "bash", "php", "lua", "r", "jl",
];

pub fn for_agent(agent: &AgentSpec, allow: &[PathBuf]) -> Vec<Shown> {
    let homes = homes();
    let mut shown: Vec<Shown> = Vec::new();
    let mut add = |path: PathBuf, walked: bool| {
        // Links are resolved: bubblewrap mounts on a link's target, landlock grants the
        // inode it points to. The whole host is never shown.
        let Ok(path) = path.canonicalize() else {
            return;
        };
        if path == Path::new("/") {
            return;
        }
        // The system's own program folders are shown already; a folder of the runtime
        // chosen for the agent (`/usr/src/app`) is shown already too, and walked.
        if runtime::holds(&path) && (!walked || system_folder(&path)) {
            return;
        }
        match shown.iter_mut().find(|s| s.path == path) {
            Some(existing) => existing.walked |= walked,
            None => shown.push(Shown { path, walked }),
        }
    };
    let program = if agent.program.contains('/') {
        Some(PathBuf::from(&agent.program))
    } else {
        find_in_path(&agent.program)
    };
    let named = agent
        .args
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && p.exists());
    for (index, file) in program.into_iter().chain(named).enumerate() {
        for path in [Some(file.clone()), file.canonicalize().ok()]
            .into_iter()
            .flatten()
        {
            if let Some(root) = installation_root(&path, &homes) {
                add(root, false);
            }
            // A script's folder is shown whole, unless it is one that holds far more than
            // the agent (`/`, `/tmp`, a home folder): then the script alone.
            let folder = path
                .parent()
                .filter(|f| (index == 0 || is_script(&path)) && !too_broad(f, &homes));
            match (path.is_dir(), folder) {
                (false, Some(folder)) => add(folder.to_owned(), true),
                _ => add(path.clone(), true),
            }
        }
    }
    for path in allow {
        add(path.clone(), true);
    }
    shown
}

/// Folders of the runtime that hold programs and libraries, never an agent's own.
fn system_folder(path: &Path) -> bool {
    ["bin", "sbin", "lib", "lib32", "lib64", "libexec", "share"]
        .iter()
        .any(|name| path.file_name().is_some_and(|n| n == *name))
        || path.components().count() <= 2
}

/// A folder a script may lie in that holds far more than the agent: `/`, the host's
/// temporary folders, a home folder and the folders of homes.
fn too_broad(folder: &Path, homes: &[PathBuf]) -> bool {
    let broad = [
        "/", "/tmp", "/var/tmp", "/home", "/root", "/srv", "/opt", "/mnt", "/media",
    ];
    let folder = folder.canonicalize().unwrap_or_else(|_| folder.to_owned());
    broad.iter().any(|b| folder == Path::new(b)) || homes.contains(&folder)
}

/// A file an interpreter runs as a script: by its ending, or executable.
fn is_script(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let by_name = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SCRIPTS.contains(&e.to_ascii_lowercase().as_str()));
    by_name
        || std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The folder an interpreter is installed in: the nearest folder holding
/// `pyvenv.cfg` (a virtualenv); for a path inside the home folder the home's child it
/// sits in when that is an installation (`~/.pyenv`, `~/.local`, `~/miniconda3`); for a program in a `bin` folder
/// outside the runtime, the prefix it was installed under (`/opt/conda`).
fn installation_root(path: &Path, homes: &[PathBuf]) -> Option<PathBuf> {
    if let Some(venv) = path.ancestors().find(|a| a.join("pyvenv.cfg").is_file()) {
        return Some(venv.to_owned());
    }
    for home in homes {
        let Ok(inside) = path.strip_prefix(home) else {
            continue;
        };
        // Only where an interpreter's manager keeps its versions, or a conda: any other
        // folder of the home (`.local`, `.cargo`, `.config`, a project) may hold secrets
        // or grading data, and is shown only as the program's or script's folder.
        let root = home.join(inside.components().next()?);
        let name = root.file_name()?.to_string_lossy().into_owned();
        return (MANAGERS.contains(&name.as_str()) || root.join("conda-meta").is_dir())
            .then_some(root);
    }
    // A prefix an interpreter was installed under (`/opt/conda/bin/python`).
    let prefix = path.parent()?.parent()?;
    prefix
        .join("conda-meta")
        .is_dir()
        .then(|| prefix.to_owned())
}

/// The home folders an interpreter may be installed under: `HOME`, and the home the
/// password database gives this user (a run with another `HOME` still finds `~/.pyenv`).
fn homes() -> Vec<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let mut homes: Vec<PathBuf> = std::env::var_os("HOME")
        .map(PathBuf::from)
        .into_iter()
        .collect();
    if let Ok(uid) = std::fs::metadata("/proc/self").map(|m| m.uid())
        && let Ok(passwd) = std::fs::read_to_string("/etc/passwd")
    {
        homes.extend(passwd_home(&passwd, uid));
    }
    let mut homes: Vec<PathBuf> = homes
        .into_iter()
        .filter_map(|h| h.canonicalize().ok())
        .filter(|h| h != Path::new("/"))
        .collect();
    homes.dedup();
    homes
}

/// The home folder of `uid` in the text of `/etc/passwd`.
fn passwd_home(passwd: &str, uid: u32) -> Option<PathBuf> {
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.len() >= 6 && fields[2].parse() == Ok(uid)).then(|| PathBuf::from(fields[5]))
    })
}

fn find_in_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::environment::PassEnv;

    #[test]
    fn interpreter_roots_under_home_and_virtualenvs() {
        let home = [PathBuf::from("/home/u")];
        assert_eq!(
            installation_root(Path::new("/home/u/.pyenv/shims/python3"), &home),
            Some(PathBuf::from("/home/u/.pyenv"))
        );
        assert_eq!(
            installation_root(Path::new("/home/u/project/agent.py"), &home),
            None
        );
        assert_eq!(
            installation_root(Path::new("/usr/bin/python3"), &home),
            None
        );
        assert_eq!(
            installation_root(Path::new("/home/u/.local/bin/uv"), &home),
            None
        );
        let conda = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(conda.path().join("conda-meta")).unwrap();
        assert_eq!(
            installation_root(&conda.path().join("bin/python"), &home),
            Some(conda.path().to_owned())
        );
        assert_eq!(
            installation_root(Path::new("/srv/eval/bin/agent.sh"), &home),
            None
        );
        assert_eq!(
            passwd_home(
                "root:x:0:0:root:/root:/bin/sh\nu:x:1000:1000::/home/u:/bin/sh\n",
                1000
            ),
            Some(PathBuf::from("/home/u"))
        );
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("venv/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(dir.path().join("venv/pyvenv.cfg"), "home = /usr\n").unwrap();
        assert_eq!(
            installation_root(&bin.join("python"), &[]),
            Some(dir.path().join("venv"))
        );
    }

    #[test]
    fn scripts_bring_their_folder_and_data_files_only_themselves() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("agent")).unwrap();
        std::fs::create_dir_all(root.join("data")).unwrap();
        std::fs::write(root.join("agent/main.py"), "").unwrap();
        std::fs::write(root.join("data/prompt.txt"), "").unwrap();
        std::fs::write(root.join("data/other.txt"), "").unwrap();
        let agent = AgentSpec {
            name: "a".to_owned(),
            program: "/bin/sh".to_owned(),
            args: vec![
                root.join("agent/main.py").display().to_string(),
                "--prompt".to_owned(),
                root.join("data/prompt.txt").display().to_string(),
                "/".to_owned(),
            ],
            env: Vec::new(),
            pass_env: PassEnv::default(),
        };
        let shown: Vec<PathBuf> = for_agent(&agent, &[]).into_iter().map(|s| s.path).collect();
        assert_eq!(shown, [root.join("agent"), root.join("data/prompt.txt")]);
        // A script straight in a folder that holds far more (/tmp here): itself alone.
        let loose = tempfile::Builder::new().tempfile_in("/tmp").unwrap();
        let loose_path = loose.path().with_extension("py");
        std::fs::write(&loose_path, "").unwrap();
        let agent = AgentSpec {
            args: vec![loose_path.display().to_string()],
            ..agent
        };
        let shown: Vec<PathBuf> = for_agent(&agent, &[]).into_iter().map(|s| s.path).collect();
        assert_eq!(shown, [loose_path.canonicalize().unwrap()]);
        std::fs::remove_file(&loose_path).unwrap();
    }
}
