//! When a call happened: the time whose prices apply.
//!
//! Logs write times in many ways, so [`parse_time`] accepts an RFC 3339 timestamp with an
//! offset (`2026-11-23T09:01:00Z`, `…+02:00`), a date and time without an offset (taken as
//! UTC), a date alone (midnight UTC), or a JSON number of Unix seconds (milliseconds when
//! it is above 10¹¹, which as seconds would be past the year 5000).

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};
use serde_json::{Map, Value};

/// The keys of an outcome or usage object that may hold its time, first present wins.
pub const TIME_KEYS: [&str; 4] = ["timestamp", "recorded_at", "started_at", "created_at"];

/// Unix times above this are milliseconds.
const MILLISECONDS_ABOVE: f64 = 1e11;

/// A time that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}`: expected an RFC 3339 time, a date or Unix seconds, found {found}")]
pub struct TimeError {
    /// The field that held it.
    pub field: String,
    /// The value, as JSON.
    pub found: String,
}

/// Reads a time from text (see the module docs for the forms accepted).
pub fn parse_time_text(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Some(ts);
    }
    if let Ok(dt) = text.parse::<DateTime>() {
        return dt.to_zoned(TimeZone::UTC).ok().map(|z| z.timestamp());
    }
    text.parse::<Date>()
        .ok()
        .and_then(|d| d.to_zoned(TimeZone::UTC).ok())
        .map(|z| z.timestamp())
}

/// Reads a time from a JSON value: text, or a number of Unix seconds or milliseconds.
pub fn parse_time(field: &str, value: &Value) -> Result<Timestamp, TimeError> {
    let parsed = match value {
        Value::String(text) => parse_time_text(text),
        Value::Number(n) => n.as_f64().and_then(|secs| {
            if secs.abs() > MILLISECONDS_ABOVE {
                Timestamp::from_millisecond(secs as i64).ok()
            } else {
                let whole = secs.trunc();
                let nanos = ((secs - whole) * 1e9).round() as i64;
                Timestamp::from_second(whole as i64)
                    .ok()
                    .and_then(|t| t.checked_add(nanos.nanoseconds()).ok())
            }
        }),
        _ => None,
    };
    parsed.ok_or_else(|| TimeError {
        field: field.to_owned(),
        found: value.to_string(),
    })
}

/// The time an object records under one of [`TIME_KEYS`], if any.
pub fn time_of(object: &Map<String, Value>) -> Result<Option<Timestamp>, TimeError> {
    first_time(TIME_KEYS.map(|key| object.get(key)))
}

/// The time in the first of `values` (those of [`TIME_KEYS`], in its order) that is
/// present and not `null`: the rule of [`time_of`], for a reader that found the values
/// without building a map.
pub fn first_time<'v>(
    values: impl IntoIterator<Item = Option<&'v Value>>,
) -> Result<Option<Timestamp>, TimeError> {
    for (key, value) in TIME_KEYS.iter().zip(values) {
        match value {
            None | Some(Value::Null) => continue,
            Some(value) => return parse_time(key, value).map(Some),
        }
    }
    Ok(None)
}

/// The UTC calendar date of a time.
pub fn utc_date(at: Timestamp) -> Date {
    at.to_zoned(TimeZone::UTC).date()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ts(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn accepts_rfc3339_civil_dates_and_unix_numbers() {
        let at = ts("2026-11-23T09:01:00Z");
        assert_eq!(parse_time("t", &json!("2026-11-23T09:01:00Z")).unwrap(), at);
        assert_eq!(
            parse_time("t", &json!("2026-11-23T10:01:00+01:00")).unwrap(),
            at
        );
        assert_eq!(parse_time("t", &json!("2026-11-23T09:01:00")).unwrap(), at);
        assert_eq!(parse_time("t", &json!("2026-11-23 09:01:00")).unwrap(), at);
        assert_eq!(
            parse_time("t", &json!("2026-11-23")).unwrap(),
            ts("2026-11-23T00:00:00Z")
        );
        assert_eq!(parse_time("t", &json!(at.as_second())).unwrap(), at);
        assert_eq!(
            parse_time("t", &json!(at.as_millisecond())).unwrap(),
            at,
            "milliseconds"
        );
        assert_eq!(
            parse_time("t", &json!(at.as_second() as f64 + 0.5)).unwrap(),
            ts("2026-11-23T09:01:00.5Z")
        );
    }

    #[test]
    fn refuses_what_is_not_a_time_naming_the_field() {
        for bad in [json!("yesterday"), json!(true), json!({"s": 1}), json!("")] {
            let err = parse_time("timestamp", &bad).unwrap_err();
            assert_eq!(err.field, "timestamp");
            assert!(err.to_string().starts_with("field `timestamp`: expected"));
        }
    }

    #[test]
    fn first_present_key_wins_and_null_is_absent() {
        let object = json!({"timestamp": null, "recorded_at": "2026-01-01", "created_at": "x"});
        assert_eq!(
            time_of(object.as_object().unwrap()).unwrap(),
            Some(ts("2026-01-01T00:00:00Z"))
        );
        assert_eq!(time_of(json!({}).as_object().unwrap()).unwrap(), None);
    }

    #[test]
    fn utc_date_of_a_late_evening_elsewhere() {
        assert_eq!(
            utc_date(ts("2026-12-31T23:30:00-02:00")),
            Date::new(2027, 1, 1).unwrap()
        );
    }
}
