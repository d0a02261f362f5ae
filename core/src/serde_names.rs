//! The field names a struct's serde derive reads, taken from the derive itself: it hands
//! them to the deserializer with the struct. Tests hold the hand-written writer and readers
//! (docs/result-format.md) to these names, so a field added to a struct is never missed.

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

/// The names `T`'s derive reads, in the order its fields are declared (which is the order
/// it writes them), aliases right after the name they stand for.
pub fn serde_names<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    let mut names = None;
    // Always an error: the names are all that is wanted.
    let _ = T::deserialize(NamesOnly { names: &mut names });
    names.expect("a struct with named fields")
}

/// A deserializer that keeps the names a struct asks it for, and gives nothing.
struct NamesOnly<'a> {
    names: &'a mut Option<&'static [&'static str]>,
}

impl<'de> Deserializer<'de> for NamesOnly<'_> {
    type Error = de::value::Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.names = Some(fields);
        Err(de::Error::custom("only the names"))
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}
