//! The `json_query` check: an RFC 9535 JSONPath query into a JSON file, what it selects
//! of the values found (one, all, first, last, their count, sum, minimum or maximum), and
//! a comparison with the expected value.

use std::cmp::Ordering;
use std::path::Path;

use serde_json::{Number, Value};
use serde_json_path::JsonPath;

use super::json::{read_json, same_json, shown};
use super::query_cost::{Budget, QUERY_STEPS, dry_run, take_size};

/// What a `json_query` check takes of the values its query found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Select {
    /// No `select`: the one value found; nothing or several values fail the check.
    One,
    /// `all`: every value found, as a list (empty when none).
    All,
    /// `first`: the first value found, in document order.
    First,
    /// `last`: the last value found.
    Last,
    /// `count`: how many values were found.
    Count,
    /// `sum`: the sum of the values found, all numbers (0 when none).
    Sum,
    /// `min`: the least of the values found, all numbers.
    Min,
    /// `max`: the greatest of the values found, all numbers.
    Max,
}

impl Select {
    /// The names `select:` takes, in the order the docs list them.
    pub(crate) const NAMES: [(&'static str, Select); 7] = [
        ("all", Select::All),
        ("first", Select::First),
        ("last", Select::Last),
        ("count", Select::Count),
        ("sum", Select::Sum),
        ("min", Select::Min),
        ("max", Select::Max),
    ];

    /// The name as task files write it; `None` for the default.
    pub fn name(self) -> Option<&'static str> {
        Self::NAMES
            .iter()
            .find(|(_, select)| *select == self)
            .map(|(name, _)| *name)
    }

    /// Whether the selection is a number whatever the values found are.
    pub(crate) fn is_numeric(self) -> bool {
        matches!(
            self,
            Select::Count | Select::Sum | Select::Min | Select::Max
        )
    }
}

/// How a `json_query` check compares the selection with its `value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    /// `==` (the default): equal as `json_equals` compares (numbers by value).
    Equal,
    /// `!=`: not equal.
    NotEqual,
    /// `>`: a number greater than the value.
    Greater,
    /// `>=`: a number greater than or equal to the value.
    GreaterOrEqual,
    /// `<`: a number less than the value.
    Less,
    /// `<=`: a number less than or equal to the value.
    LessOrEqual,
    /// `contains`: a text holding the value's text, a list holding the value, or an
    /// object with the value as a key.
    Contains,
}

impl Comparison {
    /// The spellings `op:` takes.
    pub(crate) const NAMES: [(&'static str, Comparison); 7] = [
        ("==", Comparison::Equal),
        ("!=", Comparison::NotEqual),
        (">", Comparison::Greater),
        (">=", Comparison::GreaterOrEqual),
        ("<", Comparison::Less),
        ("<=", Comparison::LessOrEqual),
        ("contains", Comparison::Contains),
    ];

    /// The spelling as task files write it.
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(_, op)| *op == self)
            .map_or("==", |(name, _)| *name)
    }

    /// Whether the comparison orders numbers (`>`, `>=`, `<`, `<=`).
    pub(crate) fn orders(self) -> bool {
        matches!(
            self,
            Comparison::Greater
                | Comparison::GreaterOrEqual
                | Comparison::Less
                | Comparison::LessOrEqual
        )
    }

    /// Whether `found` compares as asked with `expected`.
    fn holds(self, found: &Value, expected: &Value) -> bool {
        let order = || match (found, expected) {
            (Value::Number(a), Value::Number(b)) => number_order(a, b),
            _ => None,
        };
        match self {
            Comparison::Equal => same_json(found, expected),
            Comparison::NotEqual => !same_json(found, expected),
            Comparison::Greater => order() == Some(Ordering::Greater),
            Comparison::GreaterOrEqual => order().is_some_and(Ordering::is_ge),
            Comparison::Less => order() == Some(Ordering::Less),
            Comparison::LessOrEqual => order().is_some_and(Ordering::is_le),
            Comparison::Contains => match (found, expected) {
                (Value::String(text), Value::String(part)) => text.contains(part.as_str()),
                (Value::Array(items), _) => items.iter().any(|item| same_json(item, expected)),
                (Value::Object(map), Value::String(key)) => map.contains_key(key),
                _ => false,
            },
        }
    }

    /// What the check expected, for a failure text: `"cancelled"`, `> 10`, `to contain "W1"`.
    fn expectation(self, expected: &Value) -> String {
        match self {
            Comparison::Equal => shown(expected),
            Comparison::Contains => format!("to contain {}", shown(expected)),
            other => format!("{} {}", other.name(), shown(expected)),
        }
    }
}

/// One `json_query` check, as [`run`] takes it.
#[derive(Debug)]
pub(crate) struct Query<'a> {
    pub query: &'a str,
    pub select: Select,
    pub op: Comparison,
    pub value: &'a Value,
}

/// The query with what it selects, as reasons and check names show it:
/// `$.orders.W1.status`, `sum($.transactions[*].amount)`.
pub(crate) fn selection(query: &str, select: Select) -> String {
    match select.name() {
        None => query.to_owned(),
        Some(name) => format!("{name}({query})"),
    }
}

/// Runs the query on the JSON file at `path` under `dir`. Failure texts start with the
/// path and the selection: `db.json $.orders.W1.status: expected "cancelled", found
/// "pending"`, `... found nothing`, `... found 3 values (select one with select: ...)`.
///
/// The query's work is bounded ([`QUERY_STEPS`]): past it the check fails, `db.json
/// $..[?@..x]: json_query exceeded 10000000 steps`, and the query does not run on.
pub(crate) fn run(dir: &Path, path: &str, check: &Query<'_>) -> Result<(), String> {
    let doc = read_json(dir, path)?;
    let compiled = JsonPath::parse(check.query)
        .map_err(|e| format!("{path}: invalid JSONPath query {:?}: {e}", check.query))?;
    let shown_query = selection(check.query, check.select);
    let exceeded = || format!("{path} {shown_query}: json_query exceeded {QUERY_STEPS} steps");
    let mut budget = Budget::new(QUERY_STEPS);
    match dry_run(check.query, &doc, &mut budget) {
        Ok(()) => {}
        Err(Some(_)) => return Err(exceeded()),
        Err(None) => {
            return Err(format!(
                "{path} {shown_query}: json_query cannot bound the work of this query"
            ));
        }
    }
    let found = compiled.query(&doc).all();
    if check.select == Select::All {
        // `all` copies every value found, and values found under one another share nodes.
        for value in &found {
            take_size(value, &mut budget).map_err(|_| exceeded())?;
        }
    }
    let fail = |what: String| {
        Err(format!(
            "{path} {shown_query}: expected {}, found {what}",
            check.op.expectation(check.value)
        ))
    };
    let selected = match select(check.select, &found) {
        Ok(selected) => selected,
        Err(what) => return fail(what),
    };
    if check.op.holds(&selected, check.value) {
        Ok(())
    } else {
        fail(shown(&selected))
    }
}

/// The selection of the values found, or what was found instead (`nothing`, `3 values
/// (...)`, `"x" among them, not a number`).
fn select(select: Select, found: &[&Value]) -> Result<Value, String> {
    let one = |value: Option<&&Value>| value.map(|v| (*v).clone()).ok_or("nothing".to_owned());
    match select {
        Select::One => match found {
            [one] => Ok((*one).clone()),
            [] => Err("nothing".to_owned()),
            several => Err(format!(
                "{} values (pick one with select: first, last, all or count)",
                several.len()
            )),
        },
        Select::All => Ok(Value::Array(found.iter().map(|v| (*v).clone()).collect())),
        Select::First => one(found.first()),
        Select::Last => one(found.last()),
        Select::Count => Ok(Value::from(found.len())),
        Select::Sum => numbers(found).map(sum),
        Select::Min | Select::Max => {
            let numbers = numbers(found)?;
            let wanted = if select == Select::Min {
                Ordering::Less
            } else {
                Ordering::Greater
            };
            numbers
                .into_iter()
                .reduce(|best, n| {
                    if number_order(n, best) == Some(wanted) {
                        n
                    } else {
                        best
                    }
                })
                .map(|n| Value::Number(n.clone()))
                .ok_or("nothing".to_owned())
        }
    }
}

/// The values found as numbers, or the first that is not one.
fn numbers<'v>(found: &[&'v Value]) -> Result<Vec<&'v Number>, String> {
    found
        .iter()
        .map(|value| match value {
            Value::Number(n) => Ok(n),
            other => Err(format!("{} among the values, not a number", shown(other))),
        })
        .collect()
}

/// The sum as a whole number while every number is one and it fits, else as a float.
fn sum(numbers: Vec<&Number>) -> Value {
    let whole = numbers
        .iter()
        .try_fold(0_i64, |total, n| total.checked_add(n.as_i64()?));
    match whole {
        Some(total) => Value::from(total),
        None => Value::from(numbers.iter().filter_map(|n| n.as_f64()).sum::<f64>()),
    }
}

/// Orders two numbers by value: exactly for whole numbers, as floats otherwise.
fn number_order(a: &Number, b: &Number) -> Option<Ordering> {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        return Some(a.cmp(&b));
    }
    if let (Some(a), Some(b)) = (a.as_u64(), b.as_u64()) {
        return Some(a.cmp(&b));
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DB: &str = r#"{
        "orders": {"W1": {"status": "pending", "items": ["lamp", "desk"]}},
        "transactions": [
            {"recipient": "X", "amount": 5},
            {"recipient": "Y", "amount": 100},
            {"recipient": "X", "amount": 7.5}
        ],
        "tags": {"vip": true}
    }"#;

    fn sandbox() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("db.json"), DB).unwrap();
        dir
    }

    fn check(query: &str, select: Select, op: Comparison, value: Value) -> Result<(), String> {
        let dir = sandbox();
        run(
            dir.path(),
            "db.json",
            &Query {
                query,
                select,
                op,
                value: &value,
            },
        )
    }

    const TO_X: &str = "$.transactions[?@.recipient == 'X'].amount";

    #[test]
    fn the_single_value_passes_and_fails_with_what_was_found() {
        use Comparison::*;
        let status = "$.orders.W1.status";
        assert_eq!(check(status, Select::One, Equal, json!("pending")), Ok(()));
        assert_eq!(
            check(status, Select::One, Equal, json!("cancelled")),
            Err(r#"db.json $.orders.W1.status: expected "cancelled", found "pending""#.into())
        );
        assert_eq!(
            check("$.orders.W9.status", Select::One, Equal, json!("cancelled")),
            Err(r#"db.json $.orders.W9.status: expected "cancelled", found nothing"#.into())
        );
        assert_eq!(
            check(TO_X, Select::One, Equal, json!(5)),
            Err(format!(
                "db.json {TO_X}: expected 5, found 2 values \
                 (pick one with select: first, last, all or count)"
            ))
        );
        assert_eq!(check(status, Select::One, NotEqual, json!("x")), Ok(()));
        assert_eq!(
            check(status, Select::One, NotEqual, json!("pending")),
            Err(r#"db.json $.orders.W1.status: expected != "pending", found "pending""#.into())
        );
    }

    #[test]
    fn selections_of_several_values() {
        use Comparison::*;
        assert_eq!(check(TO_X, Select::All, Equal, json!([5, 7.5])), Ok(()));
        assert_eq!(check(TO_X, Select::First, Equal, json!(5)), Ok(()));
        assert_eq!(check(TO_X, Select::Last, Equal, json!(7.5)), Ok(()));
        assert_eq!(check(TO_X, Select::Count, Equal, json!(2)), Ok(()));
        assert_eq!(check(TO_X, Select::Sum, Equal, json!(12.5)), Ok(()));
        assert_eq!(check(TO_X, Select::Min, Equal, json!(5)), Ok(()));
        assert_eq!(check(TO_X, Select::Max, Equal, json!(7.5)), Ok(()));
        assert_eq!(
            check("$.transactions[*].amount", Select::Sum, Equal, json!(112.5)),
            Ok(())
        );
        assert_eq!(
            check(TO_X, Select::Sum, Greater, json!(20)),
            Err(format!("db.json sum({TO_X}): expected > 20, found 12.5"))
        );
        let none = "$.transactions[?@.recipient == 'Z'].amount";
        assert_eq!(check(none, Select::Count, Equal, json!(0)), Ok(()));
        assert_eq!(check(none, Select::Sum, Equal, json!(0)), Ok(()));
        assert_eq!(check(none, Select::All, Equal, json!([])), Ok(()));
        assert_eq!(
            check(none, Select::Max, LessOrEqual, json!(10)),
            Err(format!(
                "db.json max({none}): expected <= 10, found nothing"
            ))
        );
        assert_eq!(
            check(none, Select::First, Equal, json!(1)),
            Err(format!("db.json first({none}): expected 1, found nothing"))
        );
        assert_eq!(
            check(
                "$.transactions[*].recipient",
                Select::Sum,
                Greater,
                json!(0)
            ),
            Err("db.json sum($.transactions[*].recipient): expected > 0, \
                 found \"X\" among the values, not a number"
                .into())
        );
    }

    #[test]
    fn comparisons() {
        use Comparison::*;
        let amount = "$.transactions[1].amount";
        for (op, value, holds) in [
            (Greater, json!(99), true),
            (Greater, json!(100), false),
            (GreaterOrEqual, json!(100.0), true),
            (Less, json!(100.5), true),
            (Less, json!(100), false),
            (LessOrEqual, json!(100), true),
            (LessOrEqual, json!(-1), false),
            (Equal, json!(100.0), true),
        ] {
            assert_eq!(
                check(amount, Select::One, op, value.clone()).is_ok(),
                holds,
                "{op:?} {value}"
            );
        }
        // A text is not ordered against a number: the check fails, showing the text.
        assert_eq!(
            check("$.orders.W1.status", Select::One, Greater, json!(1)),
            Err(r#"db.json $.orders.W1.status: expected > 1, found "pending""#.into())
        );
        assert_eq!(
            check("$.orders.W1.status", Select::One, Contains, json!("end")),
            Ok(())
        );
        assert_eq!(
            check("$.orders.W1.items", Select::One, Contains, json!("desk")),
            Ok(())
        );
        assert_eq!(check("$.tags", Select::One, Contains, json!("vip")), Ok(()));
        assert_eq!(
            check("$.orders.W1.items", Select::One, Contains, json!("chair")),
            Err(
                r#"db.json $.orders.W1.items: expected to contain "chair", found ["lamp","desk"]"#
                    .into()
            )
        );
        assert_eq!(check(TO_X, Select::All, Contains, json!(7.5)), Ok(()));
    }

    #[test]
    fn a_file_that_cannot_be_read_fails_as_the_other_file_checks_do() {
        let dir = sandbox();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("db.json"), DB).unwrap();
        std::os::unix::fs::symlink(outside.path().join("db.json"), dir.path().join("out.json"))
            .unwrap();
        std::fs::write(dir.path().join("bad.json"), "{\"orders\": ").unwrap();
        std::fs::File::create(dir.path().join("huge.json"))
            .unwrap()
            .set_len(1 << 30)
            .unwrap();
        let made_fifo = std::process::Command::new("mkfifo")
            .arg(dir.path().join("pipe.json"))
            .status()
            .is_ok_and(|s| s.success());
        let value = json!(1);
        let query = Query {
            query: "$.a",
            select: Select::One,
            op: Comparison::Equal,
            value: &value,
        };
        let run_on = |file: &str| run(dir.path(), file, &query);
        assert_eq!(run_on("none.json"), Err("none.json: missing".into()));
        assert_eq!(
            run_on("out.json"),
            Err("out.json: symlink leaves the sandbox".into())
        );
        assert_eq!(
            run_on("bad.json"),
            Err("bad.json: invalid JSON at line 1 column 11".into())
        );
        assert_eq!(
            run_on("huge.json"),
            Err("huge.json: 1 GiB is over the 16 MiB limit".into())
        );
        if made_fifo {
            assert_eq!(
                run_on("pipe.json"),
                Err("pipe.json: not a regular file".into())
            );
        }
    }

    /// An agent's report of some megabytes: records nested a few levels deep.
    fn nested_report() -> String {
        let record = |i: usize| json!({"id": i, "meta": {"tags": [{"k": "a", "v": {"x": {"y": [i, {"x": i}]}}}]}});
        let records: Vec<Value> = (0..35_000).map(record).collect();
        json!({"records": records}).to_string()
    }

    #[test]
    fn nested_descendant_filters_on_a_large_file_fail_on_the_step_limit() {
        let dir = tempfile::tempdir().unwrap();
        let report = nested_report();
        assert!(report.len() > 2_500_000, "{}", report.len());
        std::fs::write(dir.path().join("report.json"), report).unwrap();
        let run_query = |query: &str, select: Select, value: Value| {
            run(
                dir.path(),
                "report.json",
                &Query {
                    query,
                    select,
                    op: Comparison::Equal,
                    value: &value,
                },
            )
        };
        let nested = "$..[?@..[?@..[?@..x]]]";
        assert_eq!(
            run_query(nested, Select::Count, json!(0)),
            Err(format!(
                "report.json count({nested}): json_query exceeded {QUERY_STEPS} steps"
            ))
        );
        // One descendant filter over the same file stays within the limit.
        assert_eq!(
            run_query("$..[?@.id == 7].id", Select::One, json!(7)),
            Ok(())
        );
    }

    #[test]
    fn copying_what_all_found_counts_against_the_limit() {
        // Lists nested 100 deep, 3000 numbers in each: `$..*` finds every list below
        // every other, and copying them all would take some 15 million values.
        let mut doc = json!([]);
        for _ in 0..100 {
            let mut items = vec![json!(0); 3000];
            items.push(doc);
            doc = Value::Array(items);
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("deep.json"), doc.to_string()).unwrap();
        let value = json!([]);
        let all = |select| {
            run(
                dir.path(),
                "deep.json",
                &Query {
                    query: "$..*",
                    select,
                    op: Comparison::Equal,
                    value: &value,
                },
            )
        };
        assert_eq!(
            all(Select::All),
            Err(format!(
                "deep.json all($..*): json_query exceeded {QUERY_STEPS} steps"
            ))
        );
        assert_eq!(
            all(Select::Count),
            Err("deep.json count($..*): expected [], found 300100".into())
        );
    }

    #[test]
    fn sums_stay_whole_until_they_cannot() {
        assert_eq!(sum(vec![&Number::from(2), &Number::from(3)]), json!(5));
        assert_eq!(
            sum(vec![&Number::from(i64::MAX), &Number::from(1)]),
            json!(i64::MAX as f64 + 1.0)
        );
        assert_eq!(
            number_order(&Number::from(u64::MAX), &Number::from(u64::MAX - 1)),
            Some(Ordering::Greater)
        );
        assert_eq!(
            number_order(&Number::from(-1), &Number::from(u64::MAX)),
            Some(Ordering::Less)
        );
    }
}
