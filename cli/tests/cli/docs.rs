//! The repository documents itself: the README and `docs/` link only inside the repository,
//! and the task-file reference names every field and every check kind proctor reads.

use crate::common::{proctor, root, run, write};

/// Every `](target)` link of a markdown text.
fn links(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(str::to_owned)
        .collect()
}

/// The names between backquotes after `marker` in a message: `a`, `b` or a, b.
fn names_after(message: &str, marker: &str) -> Vec<String> {
    let (_, list) = message
        .split_once(marker)
        .unwrap_or_else(|| panic!("{message}"));
    list.split(',')
        .map(|name| name.trim().trim_matches('`').trim().to_owned())
        .filter(|name| !name.is_empty())
        .collect()
}

#[test]
fn readme_and_docs_link_only_inside_the_repository() {
    let mut files = vec![root().join("README.md")];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        // Pages only: docs/ also holds images (the HTML report's screenshot).
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(
            !text.contains("DESIGN.md]("),
            "{} links the design file",
            file.display()
        );
        for link in links(&text) {
            let target = link.split('#').next().unwrap();
            if target.is_empty() {
                continue;
            }
            assert!(
                !target.contains("://") && !target.starts_with('/'),
                "{}: {link} points outside the repository",
                file.display()
            );
            let resolved = file.parent().unwrap().join(target);
            assert!(
                resolved.exists(),
                "{}: {link} does not exist",
                file.display()
            );
            let inside = resolved.canonicalize().unwrap();
            assert!(
                inside.starts_with(root().canonicalize().unwrap()),
                "{}: {link}",
                file.display()
            );
        }
    }
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("cargo install --locked --path cli"));
    assert!(readme.contains("docs/README.md"));
}

#[test]
fn the_task_file_reference_names_every_field_and_check_kind() {
    let dir = tempfile::tempdir().unwrap();
    let reference = std::fs::read_to_string(root().join("docs/task-file.md")).unwrap();
    // proctor lists what it reads when it meets what it does not.
    let field = write(
        dir.path(),
        "f.yaml",
        "- id: a\n  input: x\n  expected: y\n  zzz: 1\n",
    );
    let o = run(proctor()
        .args(["run", "--agent", "true", "--tasks"])
        .arg(&field));
    let fields = names_after(o.stderr.lines().next().unwrap(), "expected one of");
    assert!(fields.len() > 15, "{fields:?}");
    let check = write(
        dir.path(),
        "c.yaml",
        "- id: a\n  input: x\n  verify:\n    - {zzz: a}\n",
    );
    let o = run(proctor()
        .args(["run", "--agent", "true", "--tasks"])
        .arg(&check));
    let kinds = names_after(o.stderr.lines().next().unwrap(), "expected one of:");
    assert_eq!(kinds.len(), 9, "{kinds:?}");
    for name in fields.iter().chain(&kinds) {
        assert!(
            reference.contains(&format!("`{name}`")) || reference.contains(&format!("{{{name}:")),
            "docs/task-file.md does not name `{name}`"
        );
    }
    for rule in [
        "before:",
        "at_most:",
        "never:",
        "sequence:",
        "category: safety",
        "regex:",
        "any_of:",
        "ok: true",
        "select:",
    ] {
        assert!(
            reference.contains(rule),
            "docs/task-file.md has no example of {rule}"
        );
    }
    let metrics = std::fs::read_to_string(root().join("docs/metrics.md")).unwrap();
    for term in [
        "aborted share",
        "always pass",
        "pass@1",
        "pass rate",
        "graceful_giveup",
        "wrong_but_terminated",
        "hit_cap",
        "looping",
        "safety violations",
        "--by variant",
        "hit@k",
        "recovery rate",
    ] {
        assert!(
            metrics.contains(term),
            "docs/metrics.md does not explain {term}"
        );
    }
}

#[test]
fn the_release_profile_builds_fast_and_the_benchmarks_use_the_whole_program_one() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let profile = |name: &str| {
        let header = format!("[profile.{name}]");
        let start = manifest
            .find(&header)
            .unwrap_or_else(|| panic!("no {header}"));
        let body = &manifest[start + header.len()..];
        body[..body.find("\n[").unwrap_or(body.len())].to_owned()
    };
    let release = profile("release");
    assert!(release.contains("lto = \"thin\""), "{release}");
    assert!(!release.contains("codegen-units = 1"), "{release}");
    let dist = profile("dist");
    assert!(
        dist.contains("lto = \"fat\"") && dist.contains("codegen-units = 1"),
        "{dist}"
    );
    // Every benchmark script that builds proctor builds the dist profile (check_bench.py by
    // choice: it measures the release profile users get by default), never `--release`.
    let mut folders = vec![root().join("bench")];
    let mut building = 0;
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "py") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            if text.contains("\"build\"") {
                building += 1;
                assert!(
                    text.contains("\"dist\""),
                    "{} does not build the dist profile",
                    path.display()
                );
                assert!(
                    !text.contains("\"--release\""),
                    "{} builds --release",
                    path.display()
                );
            }
        }
    }
    assert!(building >= 3, "{building} benchmark scripts build proctor");
}
