//! Finds the line of a task or a field in a task file's text, so that errors found
//! after parsing (unknown fields, bad values) still point at a line.

/// The 1-based line where the task with `id` starts: the first line that holds the id
/// as the value of `id` or `name`.
pub fn task_line(text: &str, id: &str) -> Option<usize> {
    // Spelled out once: this runs for every task of a file, over every line of it.
    let double_quoted = format!("\"{id}\"");
    let single_quoted = format!("'{id}'");
    let plain_end = format!(" {id}");
    let flow_middle = format!(": {id},");
    let flow_end = format!(": {id}}}");
    text.lines().enumerate().find_map(|(i, line)| {
        let holds_id = line.contains(&double_quoted)
            || line.contains(&single_quoted)
            || line.trim_end().ends_with(&plain_end)
            || line.contains(&flow_middle)
            || line.contains(&flow_end);
        let names_key = line.contains("id") || line.contains("name");
        (holds_id && names_key).then_some(i + 1)
    })
}

/// The 1-based line of the first key `field` at or after line `from`.
pub fn field_line(text: &str, from: usize, field: &str) -> Option<usize> {
    let quoted = format!("\"{field}\"");
    let yaml_key = format!("{field}:");
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find_map(|(i, line)| {
            let trimmed = line.trim_start().trim_start_matches(['-', '{', ' ']);
            (line.contains(&quoted)
                || trimmed.starts_with(&yaml_key)
                || line.contains(&format!(" {yaml_key}"))
                || line.contains(&format!("{{{yaml_key}")))
            .then_some(i + 1)
        })
}

/// The plain scalar written after `key:` on `line`, without a trailing comment: how
/// the user spelled a value that YAML turned into a number (`1.50` stays `1.50`).
pub fn raw_scalar(text: &str, line: usize, key: &str) -> Option<String> {
    let content = text.lines().nth(line.checked_sub(1)?)?;
    let start = content.find(&format!("{key}:"))? + key.len() + 1;
    let rest = &content[start..];
    let value = match rest.find(" #") {
        Some(i) => &rest[..i],
        None => rest,
    };
    let value = value.trim().trim_end_matches([',', '}']).trim();
    (!value.is_empty()).then(|| value.to_owned())
}

/// The field named in a serde message such as "unknown field `expectd`, expected ...".
pub fn field_in_message(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(&message[start..start + len])
}

/// Drops serde_json's " at line L column C" suffix, which refers to a re-serialised
/// value rather than the user's file.
pub fn strip_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) => &message[..i],
        None => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const YAML: &str =
        "- id: one\n  input: a\n  expected: '1'\n- id: two\n  input: b\n  expectd: '2'\n";

    #[test]
    fn finds_task_and_field_lines() {
        assert_eq!(task_line(YAML, "two"), Some(4));
        assert_eq!(field_line(YAML, 4, "expectd"), Some(6));
        assert_eq!(field_line(YAML, 1, "expected"), Some(3));
    }

    #[test]
    fn json_lines() {
        let json = "[\n {\"id\": \"a\",\n  \"inputt\": \"x\"}\n]";
        assert_eq!(task_line(json, "a"), Some(2));
        assert_eq!(field_line(json, 2, "inputt"), Some(3));
    }

    #[test]
    fn raw_scalars_keep_their_spelling() {
        let yaml = "- id: a\n  expected: 1.50   # dollars\n- {id: b, expected: 007}\n";
        assert_eq!(raw_scalar(yaml, 2, "expected").as_deref(), Some("1.50"));
        assert_eq!(raw_scalar(yaml, 3, "expected").as_deref(), Some("007"));
    }

    #[test]
    fn message_parts() {
        let m = "unknown field `expectd`, expected one of `id` at line 1 column 9";
        assert_eq!(field_in_message(m), Some("expectd"));
        assert_eq!(
            strip_position(m),
            "unknown field `expectd`, expected one of `id`"
        );
    }
}
