//! Running a check against a directory, and describing it.

use std::path::Path;

use super::path::{LEAVES_SANDBOX, STATE_PREFIX, state_path};
use super::{CommandRunner, EndStateCheck, command, files, json, query};

impl EndStateCheck {
    /// Runs the check against `dir`, a command check through `commands`. `Ok(())` when it
    /// holds; `Err(text)` with the text that follows `end state: ` in a failure reason,
    /// always starting with the path (or, for a command, with `command "LINE"`).
    /// A path `state:REL` is `REL` in the tool state folder `commands` names, and the
    /// failure text names it with its prefix.
    pub fn check(&self, dir: &Path, commands: &dyn CommandRunner) -> Result<(), String> {
        let Some(inside) = self.path().and_then(state_path) else {
            return self.check_in(dir, commands);
        };
        let Some(state) = commands.state_dir() else {
            return Err(match commands.missing_state() {
                Some(looked) => format!(
                    "{STATE_PREFIX}{inside}: no tool state folder to check: {} does not exist",
                    looked.display()
                ),
                None => format!(
                    "{STATE_PREFIX}{inside}: no tool state folder to check (the task has no state_files, state_dir or tools)"
                ),
            });
        };
        let mut in_state = self.clone();
        if let Some(path) = in_state.path_mut() {
            inside.clone_into(path);
        }
        // The readers name the folder they read "the sandbox"; here it is the state folder.
        in_state.check_in(state, commands).map_err(|what| {
            let what = what.replacen(LEAVES_SANDBOX, "symlink leaves the state folder", 1);
            format!("{STATE_PREFIX}{what}")
        })
    }

    /// The path the check reads, if it reads one.
    fn path(&self) -> Option<&str> {
        match self {
            EndStateCheck::FileExists { path }
            | EndStateCheck::FileAbsent { path }
            | EndStateCheck::FileContains { path, .. }
            | EndStateCheck::FileMatches { path, .. }
            | EndStateCheck::FileEquals { path, .. }
            | EndStateCheck::JsonEquals { path, .. }
            | EndStateCheck::JsonSchema { path, .. }
            | EndStateCheck::JsonQuery { path, .. } => Some(path),
            EndStateCheck::Command { .. } => None,
        }
    }

    fn path_mut(&mut self) -> Option<&mut String> {
        match self {
            EndStateCheck::FileExists { path }
            | EndStateCheck::FileAbsent { path }
            | EndStateCheck::FileContains { path, .. }
            | EndStateCheck::FileMatches { path, .. }
            | EndStateCheck::FileEquals { path, .. }
            | EndStateCheck::JsonEquals { path, .. }
            | EndStateCheck::JsonSchema { path, .. }
            | EndStateCheck::JsonQuery { path, .. } => Some(path),
            EndStateCheck::Command { .. } => None,
        }
    }

    fn check_in(&self, dir: &Path, commands: &dyn CommandRunner) -> Result<(), String> {
        match self {
            EndStateCheck::FileExists { path } => files::exists(dir, path),
            EndStateCheck::FileAbsent { path } => files::absent(dir, path),
            EndStateCheck::FileContains { path, text } => files::contains(dir, path, text),
            EndStateCheck::FileMatches { path, regex } => files::matches(dir, path, regex),
            EndStateCheck::FileEquals { path, text, .. } => files::equals(dir, path, text),
            EndStateCheck::JsonEquals {
                path,
                pointer,
                value,
            } => json::equals(dir, path, pointer, value),
            EndStateCheck::JsonQuery {
                path,
                query,
                select,
                op,
                value,
            } => query::run(
                dir,
                path,
                &query::Query {
                    query,
                    select: *select,
                    op: *op,
                    value,
                },
            ),
            EndStateCheck::JsonSchema { path, schema, .. } => {
                json::matches_schema(dir, path, schema)
            }
            EndStateCheck::Command {
                run,
                exit_code,
                timeout_s,
                argv,
                files,
            } => command::check(
                dir,
                &command::Check {
                    run,
                    argv,
                    files,
                    exit_code: *exit_code,
                    timeout_s: *timeout_s,
                },
                commands,
            ),
        }
    }

    /// The check's own files, beside the task file (a command check's script): grading
    /// data, hidden from agents like the task file.
    pub fn files(&self) -> &[std::path::PathBuf] {
        match self {
            EndStateCheck::Command { files, .. } => files,
            _ => &[],
        }
    }

    /// The kind as task files name it, e.g. `file_contains`.
    pub fn kind(&self) -> &'static str {
        match self {
            EndStateCheck::FileExists { .. } => "file_exists",
            EndStateCheck::FileAbsent { .. } => "file_absent",
            EndStateCheck::FileContains { .. } => "file_contains",
            EndStateCheck::FileMatches { .. } => "file_matches",
            EndStateCheck::FileEquals { .. } => "file_equals",
            EndStateCheck::JsonEquals { .. } => "json_equals",
            EndStateCheck::JsonQuery { .. } => "json_query",
            EndStateCheck::JsonSchema { .. } => "json_schema",
            EndStateCheck::Command { .. } => "command",
        }
    }

    /// Short stable description: the kind and its path (JSON pointer included), e.g.
    /// `file_contains refund_errors.log`, `json_equals catalog.json/items/0/stock`,
    /// `command python3 check.py`.
    pub fn describe(&self) -> String {
        let what = match self {
            EndStateCheck::FileExists { path }
            | EndStateCheck::FileAbsent { path }
            | EndStateCheck::FileContains { path, .. }
            | EndStateCheck::FileMatches { path, .. }
            | EndStateCheck::FileEquals { path, .. }
            | EndStateCheck::JsonSchema { path, .. } => path.clone(),
            EndStateCheck::JsonEquals { path, pointer, .. } => format!("{path}{pointer}"),
            EndStateCheck::JsonQuery {
                path,
                query,
                select,
                ..
            } => format!("{path} {}", query::selection(query, *select)),
            EndStateCheck::Command { run, .. } => run.clone(),
        };
        format!("{} {what}", self.kind())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// A sandbox like one an agent left behind.
    fn sandbox() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let write =
            |name: &str, content: &str| std::fs::write(dir.path().join(name), content).unwrap();
        write("refund_errors.log", "O1002: invoice not found\n");
        write("catalog.json", r#"{"items": [{"sku": "A", "stock": 7}]}"#);
        write("summary.txt", "refunded: O1001\nfailed: O1002\n");
        dir
    }

    fn parse(value: Value) -> EndStateCheck {
        EndStateCheck::from_json(&value, Path::new(".")).unwrap()
    }

    fn run(value: Value, dir: &tempfile::TempDir) -> Result<(), String> {
        parse(value).check(dir.path(), &super::super::PlainCommands)
    }

    #[test]
    fn every_kind_passes_through_the_public_api() {
        let dir = sandbox();
        for value in [
            json!({"file_exists": "catalog.json"}),
            json!({"file_absent": "invoices/O1002.json"}),
            json!({"file_contains": "refund_errors.log", "text": "O1002: invoice not found"}),
            json!({"file_matches": "summary.txt", "regex": "(?m)^failed: O\\d{4}$"}),
            json!({"file_equals": "summary.txt", "text": "refunded: O1001\nfailed: O1002"}),
            json!({"json_equals": "catalog.json", "pointer": "/items/0/stock", "value": 7}),
            json!({"json_schema": "catalog.json", "schema": {"required": ["items"]}}),
            json!({"json_query": "catalog.json", "query": "$.items[?@.sku == 'A'].stock", "value": 7}),
            json!({"command": "grep -q O1002 refund_errors.log"}),
        ] {
            assert_eq!(run(value.clone(), &dir), Ok(()), "{value}");
        }
    }

    #[test]
    fn every_kind_fails_with_its_text() {
        let dir = sandbox();
        let cases = [
            (json!({"file_exists": "report.txt"}), "report.txt: missing"),
            (
                json!({"file_absent": "catalog.json"}),
                "catalog.json: exists but should not",
            ),
            (
                json!({"file_contains": "refund_errors.log", "text": "O1001"}),
                "refund_errors.log: does not contain \"O1001\"",
            ),
            (
                json!({"file_matches": "summary.txt", "regex": "^failed"}),
                "summary.txt: no match for /^failed/",
            ),
            (
                json!({"file_equals": "summary.txt", "text": "refunded: O1001\nfailed: none\n"}),
                "summary.txt: differs from expected (first difference at line 2: \
                 expected \"failed: none\", found \"failed: O1002\")",
            ),
            (
                json!({"json_equals": "catalog.json", "pointer": "/items/0/stock", "value": 6}),
                "catalog.json/items/0/stock: expected 6, found 7",
            ),
            (
                json!({"json_query": "catalog.json", "query": "$.items[*].stock", "select": "sum",
                       "op": ">", "value": 10}),
                "catalog.json sum($.items[*].stock): expected > 10, found 7",
            ),
            (
                json!({"json_schema": "catalog.json", "schema": {"properties": {"items": {"maxItems": 0}}}}),
                "catalog.json: does not match schema: [{\"sku\":\"A\",\"stock\":7}] has more than 0 items at /items",
            ),
            (
                json!({"command": "sh -c 'echo \"O1001 not refunded\" >&2; exit 4'"}),
                "command \"sh -c 'echo \\\"O1001 not refunded\\\" >&2; exit 4'\": exit code 4, \
                 expected 0 (stderr: O1001 not refunded)",
            ),
        ];
        for (value, text) in cases {
            assert_eq!(run(value.clone(), &dir), Err(text.to_owned()), "{value}");
        }
    }

    #[test]
    fn file_equals_from_and_schema_file_run_against_the_sandbox() {
        let task = tempfile::tempdir().unwrap();
        std::fs::write(
            task.path().join("expected.txt"),
            "refunded: O1001\nfailed: O1002\n",
        )
        .unwrap();
        std::fs::write(
            task.path().join("schema.json"),
            r#"{"required": ["orders"]}"#,
        )
        .unwrap();
        let dir = sandbox();
        let equals = EndStateCheck::from_json(
            &json!({"file_equals": "summary.txt", "from": "expected.txt"}),
            task.path(),
        )
        .unwrap();
        assert_eq!(
            equals.check(dir.path(), &super::super::PlainCommands),
            Ok(())
        );
        std::fs::write(dir.path().join("summary.txt"), "refunded: O1001\n").unwrap();
        assert_eq!(
            equals.check(dir.path(), &super::super::PlainCommands),
            Err(
                "summary.txt: differs from expected (first difference at line 2: \
                 expected \"failed: O1002\", found end of file)"
                    .to_owned()
            )
        );
        let schema = EndStateCheck::from_json(
            &json!({"json_schema": "catalog.json", "schema_file": "schema.json"}),
            task.path(),
        )
        .unwrap();
        assert_eq!(
            schema.check(dir.path(), &super::super::PlainCommands),
            Err(
                "catalog.json: does not match schema: \"orders\" is a required property at (root)"
                    .to_owned()
            )
        );
    }

    #[test]
    fn symlink_out_of_the_sandbox_fails() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("real.txt"), "all good\n").unwrap();
        let dir = sandbox();
        std::os::unix::fs::symlink(
            outside.path().join("real.txt"),
            dir.path().join("report.txt"),
        )
        .unwrap();
        assert_eq!(
            run(
                json!({"file_contains": "report.txt", "text": "all good"}),
                &dir
            ),
            Err("report.txt: symlink leaves the sandbox".to_owned())
        );
        assert_eq!(
            run(json!({"file_exists": "report.txt"}), &dir),
            Err("report.txt: symlink leaves the sandbox".to_owned())
        );
    }

    #[test]
    fn check_refuses_paths_built_without_parsing() {
        let dir = sandbox();
        let check = EndStateCheck::FileExists {
            path: "/etc/passwd".into(),
        };
        assert_eq!(
            check.check(dir.path(), &super::super::PlainCommands),
            Err("/etc/passwd: absolute path \"/etc/passwd\" is not allowed".to_owned())
        );
    }

    #[test]
    fn command_times_out() {
        let dir = sandbox();
        assert_eq!(
            run(json!({"command": "sleep 5", "timeout_s": 0.5}), &dir),
            Err("command \"sleep 5\": timed out after 0.5s".to_owned())
        );
    }

    #[test]
    fn describes_kind_and_path() {
        let cases = [
            (json!({"file_exists": "a.txt"}), "file_exists a.txt"),
            (json!({"file_absent": "a.txt"}), "file_absent a.txt"),
            (
                json!({"file_contains": "refund_errors.log", "text": "x"}),
                "file_contains refund_errors.log",
            ),
            (
                json!({"file_matches": "a.txt", "regex": "x"}),
                "file_matches a.txt",
            ),
            (
                json!({"file_equals": "a.txt", "text": "x"}),
                "file_equals a.txt",
            ),
            (
                json!({"json_equals": "c.json", "pointer": "/items/0", "value": 1}),
                "json_equals c.json/items/0",
            ),
            (
                json!({"json_schema": "c.json", "schema": {}}),
                "json_schema c.json",
            ),
            (
                json!({"json_query": "db.json", "query": "$.a[*]", "select": "count", "value": 0}),
                "json_query db.json count($.a[*])",
            ),
            (
                json!({"command": "python3 check.py"}),
                "command python3 check.py",
            ),
        ];
        for (value, text) in cases {
            assert_eq!(parse(value).describe(), text);
        }
    }
}

#[cfg(test)]
mod state_tests {
    use super::*;
    use serde_json::json;

    /// Plain commands, with a tool state folder.
    #[derive(Debug)]
    struct WithState(std::path::PathBuf);

    impl CommandRunner for WithState {
        fn run(
            &self,
            command: &super::super::CheckCommand<'_>,
        ) -> std::io::Result<super::super::CommandEnd> {
            super::super::PlainCommands.run(command)
        }
        fn state_dir(&self) -> Option<&Path> {
            Some(&self.0)
        }
    }

    #[test]
    fn state_paths_read_the_state_folder_and_name_their_prefix() {
        let sandbox = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        std::fs::write(state.path().join("db.json"), r#"{"status": "cancelled"}"#).unwrap();
        // The same name in the sandbox is not what a `state:` path reads.
        std::fs::write(sandbox.path().join("db.json"), r#"{"status": "open"}"#).unwrap();
        let check = |value: serde_json::Value, runner: &dyn CommandRunner| {
            EndStateCheck::from_json(&value, Path::new("."))
                .unwrap()
                .check(sandbox.path(), runner)
        };
        let runner = WithState(state.path().to_owned());
        let equals =
            json!({"json_equals": "state:db.json", "pointer": "/status", "value": "cancelled"});
        assert_eq!(check(equals.clone(), &runner), Ok(()));
        assert_eq!(
            check(json!({"file_exists": "state:other.json"}), &runner),
            Err("state:other.json: missing".to_owned())
        );
        assert_eq!(
            check(json!({"file_absent": "state:other.json"}), &runner),
            Ok(())
        );
        std::os::unix::fs::symlink(sandbox.path().join("db.json"), state.path().join("link"))
            .unwrap();
        assert_eq!(
            check(json!({"file_exists": "state:link"}), &runner),
            Err("state:link: symlink leaves the state folder".to_owned())
        );
        assert_eq!(
            check(equals, &super::super::PlainCommands),
            Err("state:db.json: no tool state folder to check (the task has no state_files, state_dir or tools)".to_owned())
        );
    }

    /// Plain commands whose state folder was looked for at a place that is not there.
    #[derive(Debug)]
    struct StateMissingAt(std::path::PathBuf);

    impl CommandRunner for StateMissingAt {
        fn run(
            &self,
            command: &super::super::CheckCommand<'_>,
        ) -> std::io::Result<super::super::CommandEnd> {
            super::super::PlainCommands.run(command)
        }
        fn missing_state(&self) -> Option<&Path> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_state_folder_looked_for_and_not_found_is_named() {
        let sandbox = tempfile::tempdir().unwrap();
        let check =
            EndStateCheck::from_json(&json!({"file_exists": "state:db.json"}), Path::new("."))
                .unwrap();
        let runner = StateMissingAt("/kept/t/0.state".into());
        assert_eq!(
            check.check(sandbox.path(), &runner),
            Err(
                "state:db.json: no tool state folder to check: /kept/t/0.state does not exist"
                    .to_owned()
            )
        );
    }
}
