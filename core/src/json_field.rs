//! Looking up a key in a JSON object that has a handful of keys (tool arguments, usage
//! objects), as grading a large log does millions of times.
//!
//! The object map hashes the key with SipHash on every lookup; for a few short keys,
//! comparing them one by one is several times faster and finds the same entry (keys
//! in an object are unique).

use serde_json::{Map, Value};

/// Objects up to this many keys are scanned rather than hashed.
const SCANNED_KEYS: usize = 12;

/// The value under `key`, as `Map::get` finds it.
pub fn map_get<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if map.len() <= SCANNED_KEYS {
        map.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        map.get(key)
    }
}

/// The value under `key` when `value` is an object, as `Value::get` finds it.
pub fn get<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    match value {
        Value::Object(map) => map_get(map, key),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_what_the_map_finds_small_or_large() {
        let small = json!({"a": 1, "b": null});
        let large: Value = (0..40)
            .map(|i| (format!("k{i}"), json!(i)))
            .collect::<Map<_, _>>()
            .into();
        for (value, key) in [
            (&small, "a"),
            (&small, "b"),
            (&small, "c"),
            (&large, "k39"),
            (&large, "x"),
        ] {
            assert_eq!(get(value, key), value.get(key));
        }
        assert_eq!(get(&json!([1]), "a"), None);
    }
}
