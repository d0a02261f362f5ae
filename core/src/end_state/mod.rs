//! End-state checks (docs/task-file.md): what the agent left behind in its sandbox.
//!
//! A task's `verify:` list holds one object per check. Each is parsed once, when the task
//! file loads ([`EndStateCheck::from_json`]), and run against a directory after the agent
//! exits, or against `--workdir DIR` offline ([`EndStateCheck::check`]). A failed check
//! becomes the reason `end state: <text>`.
//!
//! Task-file shapes (YAML or JSON):
//!
//! | shape | holds when |
//! |---|---|
//! | `{file_exists: PATH}` | something exists at PATH (a file or a directory) |
//! | `{file_absent: PATH}` | nothing exists at PATH (not even a dangling symlink) |
//! | `{file_contains: PATH, text: "..."}` | the file is UTF-8 text containing `text` |
//! | `{file_matches: PATH, regex: "..."}` | the [`regex`] crate's pattern matches somewhere in the file (use `(?m)` for `^`/`$` per line) |
//! | `{file_equals: PATH, text: "..."}` or `{file_equals: PATH, from: FILE}` | the file's text equals the expected text (see below) |
//! | `{json_equals: PATH, pointer: "/a/0", value: V}` | the value at the JSON pointer equals `V` (`pointer` defaults to `""`, the whole document) |
//! | `{json_query: PATH, query: Q, select?: S, op?: OP, value: V}` | the JSONPath (RFC 9535) query's selection compares with `V` (see below) |
//! | `{json_schema: PATH, schema: {...}}` or `{json_schema: PATH, schema_file: FILE}` | the document validates against the schema |
//! | `{command: "LINE", exit_code: 0, timeout_s: 30}` | the command exits with `exit_code` (default 0) within `timeout_s` (default 30) |
//!
//! Choices worth knowing:
//!
//! - Every path is relative: absolute paths and `..` are refused when the task loads
//!   (`check_relative_path`). `from` and `schema_file` are relative to the folder of the task
//!   file and are read when it loads. At check time a path that resolves through a symlink to
//!   somewhere outside the directory fails with `PATH: symlink leaves the sandbox`, and
//!   nothing outside is read. Only regular files are read (a FIFO cannot hang the grader).
//! - Unknown keys are errors that name the key, so a typo cannot silently disable a check.
//! - `file_equals` compares exactly, except that one final newline (`\n` or `\r\n`) on either
//!   side is ignored, so `text: "done"` matches a file written by `echo done`.
//! - `json_equals` compares numbers by value (`7` equals `7.0`) and objects regardless of key
//!   order; everything else is plain JSON equality.
//! - `json_query` takes, of the values the query finds, the one value (no `select`: none
//!   or several fail), `all` (a list), `first`, `last`, `count`, `sum`, `min` or `max`
//!   (numbers), and compares it with `op`: `==` (the default, as `json_equals`
//!   compares), `!=`, `>`, `>=`, `<`, `<=` (numbers) or `contains` (a text's substring,
//!   a list's item, an object's key). The query is checked when the task loads; its work
//!   on the agent's file is bounded (`query_cost`), past which the check fails.
//! - `json_schema` asserts `format` (e.g. `date`, `email`) and never fetches a remote `$ref`.
//!   A root-level schema error is reported `at (root)`.
//! - `command` is split like a shell (no shell unless the line asks for one, e.g.
//!   `sh -c '...'`) and runs with the directory as working directory, stdin empty, through
//!   the caller's [`CommandRunner`] (proctor's contains it like the agent). A word naming a
//!   file beside the task file (`checks/verify.py`, `./check.sh`) is that file, made
//!   absolute when the task loads; a relative program that is not there is refused. The key `run` is accepted as an alias for `command`, both as
//!   `{run: LINE, ...}` and as `{command: {run: LINE, exit_code: N, timeout_s: S}}`. On timeout
//!   the whole group is killed; after a normal exit anything the command left running in its
//!   group is killed too, so no process outlives a check. At most 64 KiB of stdout (the start)
//!   and of stderr (the end) are kept; the rest is drained.
//! - Long values in failure texts are cut to a fixed number of characters followed by `…`.

mod check;
mod command;
mod error;
mod files;
mod json;
mod parse;
mod path;
mod query;
mod query_cost;
mod serialize;
mod text;

#[cfg(test)]
pub(crate) use command::PlainCommands;
pub(crate) use command::split as split_command_line;
pub use command::{CheckCommand, CommandEnd, CommandRunner};
pub use error::EndStateError;
pub(crate) use json::compile_schema;
pub use json::same_json;
pub use path::STATE_PREFIX;
pub(crate) use path::check_relative_path;
pub use query::{Comparison, Select};

/// One end-state check from a task's `verify:` list.
///
/// Paths are relative to the directory the check runs against. Build one with
/// [`EndStateCheck::from_json`], which validates everything it can up front (paths, regex,
/// schema, pointer, command line); [`EndStateCheck::check`] re-validates defensively.
/// Serialises back to the task-file shape.
#[derive(Debug, Clone, PartialEq)]
pub enum EndStateCheck {
    /// `{file_exists: PATH}`.
    FileExists {
        /// The file checked, relative to the checked directory.
        path: String,
    },
    /// `{file_absent: PATH}`.
    FileAbsent {
        /// The file checked, relative to the checked directory.
        path: String,
    },
    /// `{file_contains: PATH, text: TEXT}`.
    FileContains {
        /// The file checked, relative to the checked directory.
        path: String,
        /// The text to find or to equal.
        text: String,
    },
    /// `{file_matches: PATH, regex: REGEX}`; the pattern is compiled when checked (and once
    /// when parsed, to reject a bad one early).
    FileMatches {
        /// The file checked, relative to the checked directory.
        path: String,
        /// The pattern, as written.
        regex: String,
    },
    /// `{file_equals: PATH, text: TEXT}` or `{file_equals: PATH, from: FILE}`; with `from`,
    /// `text` holds the file's content, read when the task was parsed.
    FileEquals {
        /// The file checked, relative to the checked directory.
        path: String,
        /// The text to find or to equal.
        text: String,
        /// The file beside the task file that `text` was read from, when there was one.
        from: Option<String>,
    },
    /// `{json_equals: PATH, pointer: POINTER, value: VALUE}`.
    JsonEquals {
        /// The file checked, relative to the checked directory.
        path: String,
        /// A JSON pointer into the file; empty for the whole document.
        pointer: String,
        /// The value expected at `pointer`.
        value: serde_json::Value,
    },
    /// `{json_query: PATH, query: Q, select: S, op: OP, value: V}`.
    JsonQuery {
        /// The file checked, relative to the checked directory.
        path: String,
        /// The JSONPath query (RFC 9535), as written; checked when parsed.
        query: String,
        /// What is taken of the values the query finds.
        select: Select,
        /// How the selection compares with `value`.
        op: Comparison,
        /// The value the selection is compared with.
        value: serde_json::Value,
    },
    /// `{json_schema: PATH, schema: SCHEMA}` or `{json_schema: PATH, schema_file: FILE}`;
    /// with `schema_file`, `schema` holds the file's content, read when the task was parsed.
    JsonSchema {
        /// The file checked, relative to the checked directory.
        path: String,
        /// The JSON schema the file must satisfy.
        schema: serde_json::Value,
        /// The file beside the task file that `schema` was read from, when there was one.
        schema_file: Option<String>,
    },
    /// `{command: LINE, exit_code: N, timeout_s: S}` (defaults 0 and 30 s). `argv` is the
    /// line split into words, those naming a file beside the task file made absolute;
    /// `files` are those files (the check's own, read from the task's folder).
    Command {
        /// The command line, as written.
        run: String,
        /// The exit code that passes.
        exit_code: i32,
        /// Seconds before the command is killed and the check fails.
        timeout_s: f64,
        /// The line split into words, files beside the task file made absolute.
        argv: Vec<String>,
        /// The files beside the task file that the command names.
        files: Vec<std::path::PathBuf>,
    },
}
