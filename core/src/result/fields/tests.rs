//! The names of [`ALL`] against the serde derives, and the hand-written writer against serde
//! on a line with every field set (fixtures/result/every_field.json; docs/result-format.md).

use super::*;
use crate::grade::CheckResult;
use crate::outcome::Step;
use crate::result::{Cost, ModelCost, ResultLine};
use crate::serde_names::serde_names;
use serde_json::{Map, Value};

/// A result line with every field set to a value it writes (none left out for being absent
/// or empty), and every member of the objects the writer writes by hand.
const EVERY_FIELD: &str = include_str!("../../../../fixtures/result/every_field.json");

fn every_field() -> (Map<String, Value>, ResultLine) {
    let Value::Object(sample) = serde_json::from_str(EVERY_FIELD).unwrap() else {
        panic!("every_field.json is an object");
    };
    let line = ResultLine::parse(EVERY_FIELD).unwrap();
    (sample, line)
}

fn keys(object: &Value) -> Vec<&str> {
    object
        .as_object()
        .unwrap_or_else(|| panic!("an object: {object}"))
        .keys()
        .map(String::as_str)
        .collect()
}

#[test]
fn serde_reads_the_listed_names_in_their_order_and_the_older_names_besides() {
    let with_older: Vec<&str> = ALL
        .iter()
        .flat_map(|&name| match name {
            TASK => vec![TASK, OLDER_TASK],
            ATTEMPT => vec![ATTEMPT, OLDER_ATTEMPT],
            name => vec![name],
        })
        .collect();
    assert_eq!(
        serde_names::<ResultLine>(),
        with_older,
        "a field of ResultLine is not in result::fields::ALL, or not in its place: list it \
         there, write it in write.rs and set it in fixtures/result/every_field.json"
    );
}

#[test]
fn the_sample_sets_every_field_and_serde_writes_it_back_as_it_is() {
    let (sample, line) = every_field();
    let sample = Value::Object(sample);
    assert_eq!(
        keys(&sample),
        ALL,
        "fixtures/result/every_field.json gives every field of ALL, in order"
    );
    // The members of every object the writer writes by hand, as their derives name them.
    for (object, names) in [
        (&sample[COST], serde_names::<Cost>()),
        (&sample[COST]["models"][0], serde_names::<ModelCost>()),
        (&sample[CHECKS][0], serde_names::<CheckResult>()),
        (&sample[TRAJECTORY][0], serde_names::<Step>()),
    ] {
        assert_eq!(keys(object), names, "every member is set in {object}");
    }
    // Nothing in the sample is ignored, defaulted or left out.
    assert_eq!(serde_json::to_value(&line).unwrap(), sample);
}

#[test]
fn the_writer_writes_every_field_as_serde_does() {
    let (sample, line) = every_field();
    let ours = line.to_json();
    assert_eq!(ours, serde_json::to_string(&line).unwrap());
    assert_eq!(
        serde_json::from_str::<Value>(&ours).unwrap(),
        Value::Object(sample)
    );
}

#[test]
fn read_back_fields_are_fields_of_the_line() {
    for name in READ_BACK {
        assert!(ALL.contains(&name), "{name}");
    }
    for name in crate::outcome::names::ALL {
        assert!(ALL.contains(&name), "{name}");
    }
}
