//! The examples docs/task-file.md gives as tables, checked row by row: the tool globs of
//! faults and the regular expressions inside JSONPath filters.

use proctor_core::faults::FaultSpec;
use serde_json::{Value, json};

/// The rows of the first table after `heading` in docs/task-file.md, header and rule left
/// out, each cell without its surrounding space.
fn table_after(heading: &str) -> Vec<Vec<String>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/task-file.md");
    let text = std::fs::read_to_string(path).unwrap();
    let start = text
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} in the docs"));
    let rows: Vec<Vec<String>> = text[start..]
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| {
            line.trim_matches('|')
                .split(" | ")
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect();
    assert!(rows.len() >= 5, "{heading}: {rows:?}");
    rows
}

/// `` `a`, `b` `` as ["a", "b"].
fn names(cell: &str) -> Vec<String> {
    cell.split(", ")
        .map(|name| name.trim_matches('`').to_owned())
        .collect()
}

#[test]
fn every_documented_glob_matches_what_its_row_says() {
    for row in table_after("### Tool globs") {
        let glob = row[0].trim_matches('`');
        let fault: FaultSpec =
            serde_json::from_value(json!({"tool": glob, "kind": "error", "calls": [1]})).unwrap();
        for name in names(&row[1]) {
            assert!(fault.matches(&name), "{glob} should match {name}");
        }
        for name in names(&row[2]) {
            assert!(!fault.matches(&name), "{glob} should not match {name}");
        }
    }
}

#[test]
fn every_documented_regex_query_selects_what_its_row_says() {
    let document = json!({"items": [
        {"name": "Water Bottle"}, {"name": "water jug"}, {"name": "Yoga Mat"}]});
    for row in table_after("Filters may test text with") {
        let query = row[0].trim_matches('`');
        let wanted: Value = serde_json::from_str(row[1].trim_matches('`')).unwrap();
        let path =
            serde_json_path::JsonPath::parse(query).unwrap_or_else(|e| panic!("{query}: {e}"));
        let found: Vec<Value> = path.query(&document).all().into_iter().cloned().collect();
        assert_eq!(Value::Array(found), wanted, "{query}");
    }
}
