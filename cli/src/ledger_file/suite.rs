//! The default suite name of ledger rows.

use std::path::Path;

/// A folder's name, or a task file's stem; a stem as generic as `tasks` gives way to the
/// folder holding the file (`fixtures/refunds/tasks.yaml` → `refunds`).
pub fn suite_name(tasks: &Path) -> String {
    let name = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if tasks.is_dir() {
        return tasks
            .file_name()
            .map_or_else(|| name(tasks), |n| n.to_string_lossy().into_owned());
    }
    let stem = name(tasks);
    let generic = matches!(stem.as_str(), "tasks" | "task" | "suite" | "");
    match tasks.parent().and_then(Path::file_name) {
        Some(folder) if generic => folder.to_string_lossy().into_owned(),
        _ => stem,
    }
}

#[cfg(test)]
mod tests {
    use super::suite_name;
    use std::path::Path;

    #[test]
    fn generic_stems_take_the_folder_name() {
        assert_eq!(
            suite_name(Path::new("fixtures/refunds/tasks.yaml")),
            "refunds"
        );
        assert_eq!(suite_name(Path::new("suites/billing.yaml")), "billing");
        assert_eq!(suite_name(Path::new("tasks.json")), "tasks");
    }
}
