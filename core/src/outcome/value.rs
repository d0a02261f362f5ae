//! Reading a `usage` field (a usage object or a list of them) into a `serde_json::Value`,
//! exactly as `Value` reads itself, but with each usage object's map made with room for its
//! keys up front.
//!
//! A usage object has a handful of keys; grown one insert at a time, its map reallocates
//! its entries and rehashes its index on the way, which costs more than reading the keys.
//! What is inside a usage object is read by `Value` itself.

use serde::Deserializer;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Keys a usage object's map has room for before it grows: its token buckets, the
/// provider and the model, with a few to spare.
const OBJECT_ROOM: usize = 8;

/// Reads any JSON value into a [`Value`]; a list's items are read the same way, an object's
/// members by `Value`.
#[derive(Debug, Clone, Copy)]
pub(super) struct ValueSeed;

impl<'de> DeserializeSeed<'de> for ValueSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // As `Value` does: a float JSON cannot hold becomes null.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(ValueSeed)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::with_capacity(map.size_hint().unwrap_or(OBJECT_ROOM));
        // A repeated key keeps its first place and its last value, as in `Value`.
        while let Some(key) = map.next_key::<String>()? {
            let value: Value = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(text: &str) -> (Value, Value) {
        let ours = ValueSeed
            .deserialize(&mut serde_json::Deserializer::from_str(text))
            .unwrap();
        (ours, serde_json::from_str(text).unwrap())
    }

    #[test]
    fn reads_what_value_reads() {
        for text in [
            r#"{"provider": "anthropic", "model": "m", "input_tokens": 8713, "output_tokens": 239}"#,
            r#"{"a": 1, "b": [1.5, -2, null, true, "x\n"], "a": {"c": {}}, "d": []}"#,
            r#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9}"#,
            "18446744073709551616",
            "-0",
            r#""\u00e9""#,
        ] {
            let (ours, theirs) = both(text);
            assert_eq!(ours, theirs, "{text}");
            assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
        }
    }

    #[test]
    fn reads_a_parsed_value_as_it_is() {
        let value: Value =
            serde_json::from_str(r#"{"usage": {"input_tokens": 3}, "list": [1, "a"]}"#).unwrap();
        let ours = ValueSeed.deserialize(&value).unwrap();
        assert_eq!(ours.to_string(), value.to_string());
    }
}
