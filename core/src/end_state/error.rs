//! Errors found while parsing an end-state check from a task file.

/// Why an entry of a task's `verify:` list is not a valid end-state check.
///
/// Messages are lowercase and name the check kind, the key and, where there is one, the path.
#[derive(Debug, thiserror::Error)]
pub enum EndStateError {
    /// The entry is not a JSON object.
    #[error("end-state check must be an object like {{file_exists: PATH}}, found {found}")]
    NotAnObject { found: &'static str },
    /// No key names a check kind.
    #[error("end-state check has no known kind (keys: {keys}); expected one of: {kinds}")]
    NoKind { keys: String, kinds: String },
    /// More than one key names a check kind.
    #[error("end-state check names more than one kind: {kinds}")]
    SeveralKinds { kinds: String },
    /// A key that this kind of check does not take.
    #[error("unknown key `{key}` in {kind} check (allowed: {allowed})")]
    UnknownKey {
        kind: &'static str,
        key: String,
        allowed: String,
    },
    /// A required key is absent.
    #[error("{kind} check needs `{key}`")]
    MissingKey {
        kind: &'static str,
        key: &'static str,
    },
    /// Two keys that exclude each other are both present.
    #[error("{kind} check takes `{first}` or `{second}`, not both")]
    Conflict {
        kind: &'static str,
        first: &'static str,
        second: &'static str,
    },
    /// A key holds a value of the wrong type or range.
    #[error("`{key}` in {kind} check must be {expected}, found {found}")]
    WrongType {
        kind: &'static str,
        key: &'static str,
        expected: &'static str,
        found: String,
    },
    /// A path is absolute, empty or contains `..`.
    #[error("`{key}` in {kind} check: {message}")]
    BadPath {
        kind: &'static str,
        key: &'static str,
        message: String,
    },
    /// A `from` or `schema_file` could not be read.
    #[error("`{key}` in {kind} check: cannot read {path}: {source}")]
    ReadFile {
        kind: &'static str,
        key: &'static str,
        path: String,
        source: std::io::Error,
    },
    /// A `from` file is not UTF-8 text.
    #[error("`{key}` in {kind} check: {path} is not valid UTF-8")]
    NotUtf8 {
        kind: &'static str,
        key: &'static str,
        path: String,
    },
    /// A `schema_file` is not valid JSON.
    #[error("`schema_file` in json_schema check: {path} is not valid JSON: {message}")]
    SchemaFileJson { path: String, message: String },
    /// The regex does not compile.
    #[error("`regex` in file_matches check for {path}: invalid regex /{regex}/: {message}")]
    BadRegex {
        path: String,
        regex: String,
        message: String,
    },
    /// The schema is not a valid JSON schema (or needs a remote `$ref`).
    #[error("`{key}` in json_schema check for {path}: invalid JSON schema: {message}")]
    BadSchema {
        key: &'static str,
        path: String,
        message: String,
    },
    /// The JSON pointer is neither empty nor starts with `/`, or has a bad `~` escape.
    #[error(
        "`pointer` in json_equals check for {path}: invalid JSON pointer {pointer:?} ({message})"
    )]
    BadPointer {
        path: String,
        pointer: String,
        message: &'static str,
    },
    /// The command line is empty or does not split (e.g. an unclosed quote).
    #[error("command check: invalid command line {run:?}: {message}")]
    BadCommand { run: String, message: String },
}
