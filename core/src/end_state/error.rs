//! Errors found while parsing an end-state check from a task file.

/// Why an entry of a task's `verify:` list is not a valid end-state check.
///
/// Messages are lowercase and name the check kind, the key and, where there is one, the path.
#[derive(Debug, thiserror::Error)]
pub enum EndStateError {
    /// The entry is not a JSON object.
    #[error("end-state check must be an object like {{file_exists: PATH}}, found {found}")]
    NotAnObject {
        /// The JSON type found instead.
        found: &'static str,
    },
    /// No key names a check kind.
    #[error("end-state check has no known kind (keys: {keys}); expected one of: {kinds}")]
    NoKind {
        /// The keys the entry has, comma-separated.
        keys: String,
        /// The check kinds involved, comma-separated.
        kinds: String,
    },
    /// More than one key names a check kind.
    #[error("end-state check names more than one kind: {kinds}")]
    SeveralKinds {
        /// The check kinds involved, comma-separated.
        kinds: String,
    },
    /// A key that this kind of check does not take.
    #[error("unknown key `{key}` in {kind} check (allowed: {allowed})")]
    UnknownKey {
        /// The check kind, as written in the task file.
        kind: &'static str,
        /// The offending key.
        key: String,
        /// The keys this kind of check takes, comma-separated.
        allowed: String,
    },
    /// A required key is absent.
    #[error("{kind} check needs `{key}`")]
    MissingKey {
        /// The check kind, as written in the task file.
        kind: &'static str,
        /// The offending key.
        key: &'static str,
    },
    /// Two keys that exclude each other are both present.
    #[error("{kind} check takes `{first}` or `{second}`, not both")]
    Conflict {
        /// The check kind, as written in the task file.
        kind: &'static str,
        /// The first of the two exclusive keys.
        first: &'static str,
        /// The second of the two exclusive keys.
        second: &'static str,
    },
    /// A key holds a value of the wrong type or range.
    #[error("`{key}` in {kind} check must be {expected}, found {found}")]
    WrongType {
        /// The check kind, as written in the task file.
        kind: &'static str,
        /// The offending key.
        key: &'static str,
        /// What the key must hold.
        expected: &'static str,
        /// The JSON type found instead.
        found: String,
    },
    /// A path is absolute, empty or contains `..`.
    #[error("`{key}` in {kind} check: {message}")]
    BadPath {
        /// The check kind, as written in the task file.
        kind: &'static str,
        /// The offending key.
        key: &'static str,
        /// Why the value is rejected.
        message: String,
    },
    /// A `from` or `schema_file` could not be read.
    #[error("`{key}` in {kind} check: cannot read {path}: {source}")]
    ReadFile {
        /// The check kind, as written in the task file.
        kind: &'static str,
        /// The offending key.
        key: &'static str,
        /// The path the check names, relative to the workspace.
        path: String,
        /// The underlying read error.
        source: std::io::Error,
    },
    /// A `from` file is not UTF-8 text.
    #[error("`{key}` in {kind} check: {path} is not valid UTF-8")]
    NotUtf8 {
        /// The check kind, as written in the task file.
        kind: &'static str,
        /// The offending key.
        key: &'static str,
        /// The path the check names, relative to the workspace.
        path: String,
    },
    /// A `schema_file` is not valid JSON.
    #[error("`schema_file` in json_schema check: {path} is not valid JSON: {message}")]
    SchemaFileJson {
        /// The path the check names, relative to the workspace.
        path: String,
        /// Why the value is rejected.
        message: String,
    },
    /// The regex does not compile.
    #[error("`regex` in file_matches check for {path}: invalid regex /{regex}/: {message}")]
    BadRegex {
        /// The path the check names, relative to the workspace.
        path: String,
        /// The regex as written.
        regex: String,
        /// Why the value is rejected.
        message: String,
    },
    /// The schema is not a valid JSON schema (or needs a remote `$ref`).
    #[error("`{key}` in json_schema check for {path}: invalid JSON schema: {message}")]
    BadSchema {
        /// The offending key.
        key: &'static str,
        /// The path the check names, relative to the workspace.
        path: String,
        /// Why the value is rejected.
        message: String,
    },
    /// The JSON pointer is neither empty nor starts with `/`, or has a bad `~` escape.
    #[error(
        "`pointer` in json_equals check for {path}: invalid JSON pointer {pointer:?} ({message})"
    )]
    BadPointer {
        /// The path the check names, relative to the workspace.
        path: String,
        /// The pointer as written.
        pointer: String,
        /// Why the value is rejected.
        message: &'static str,
    },
    /// The JSONPath query does not parse.
    #[error("`query` in json_query check for {path}: invalid JSONPath query {query:?}: {message}")]
    BadQuery {
        /// The path the check names, relative to the workspace.
        path: String,
        /// The query as written.
        query: String,
        /// Why the value is rejected.
        message: String,
    },
    /// `select`, `op` and `value` of a json_query check that cannot go together.
    #[error("json_query check for {path}: {message}")]
    QueryMismatch {
        /// The path the check names, relative to the workspace.
        path: String,
        /// What does not go together.
        message: String,
    },
    /// The command line is empty or does not split (e.g. an unclosed quote).
    #[error("command check: invalid command line {run:?}: {message}")]
    BadCommand {
        /// The command line as written.
        run: String,
        /// Why the value is rejected.
        message: String,
    },
}
