//! The price table in TOML (`proctor.prices/1`).
//!
//! ```toml
//! format = "proctor.prices/1"          # optional
//!
//! [[price]]
//! provider = "anthropic"
//! model = "claude-sonnet-4-5"
//! aliases = ["claude-sonnet-4-5-20250929"]   # optional
//! effective = 2025-09-29                     # TOML date or date-time (UTC unless it says)
//! source = "https://platform.claude.com/docs/en/about-claude/pricing"
//! checked = 2026-11-29                       # optional
//! input = "3"                                # USD per million tokens, text or number
//! cache_read = "0.30"                        # optional, default: input
//! cache_write_5m = "3.75"                    # optional, default: input
//! cache_write_1h = "6"                       # optional, default: cache_write_5m
//! output = "15"
//! service_tiers = { batch = "0.5" }          # optional multipliers of the whole cost
//! long_context = { above = 200000, input = "6", cache_read = "0.60",
//!                  cache_write_5m = "7.50", cache_write_1h = "12", output = "22.50" }
//! ```
//!
//! A row's id is `provider/model@effective` (the date alone when the row starts at
//! midnight UTC) unless it sets `id`. Unknown keys, negative prices, two rows of one model
//! with the same effective time and an alias naming two models are errors with the line
//! and column.

use super::error::PriceError;
use super::names::canonical_provider;
use super::position::line_column;
use super::row::{LongContext, PriceRow};
use super::value::{Multiplier, Price};
use crate::BucketPrices;
use crate::time::{parse_time_text, utc_date};
use jiff::Timestamp;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// The format tag a price table may carry.
pub const PRICES_FORMAT: &str = "proctor.prices/1";
const FORMAT_PREFIX: &str = "proctor.prices/";
const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    format: Option<Spanned<String>>,
    #[serde(default)]
    price: Vec<Spanned<RawRow>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRow {
    id: Option<Spanned<String>>,
    provider: Spanned<String>,
    model: Spanned<String>,
    #[serde(default)]
    aliases: Vec<Spanned<String>>,
    effective: Spanned<toml::Value>,
    source: Option<String>,
    checked: Option<toml::Value>,
    notes: Option<String>,
    input: Price,
    cache_read: Option<Price>,
    cache_write_5m: Option<Price>,
    cache_write_1h: Option<Price>,
    output: Price,
    long_context: Option<Spanned<RawLong>>,
    #[serde(default)]
    service_tiers: BTreeMap<String, Multiplier>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLong {
    above: u64,
    input: Price,
    cache_read: Option<Price>,
    cache_write_5m: Option<Price>,
    cache_write_1h: Option<Price>,
    output: Price,
}

/// Bucket prices with the defaults of the module docs.
fn buckets(
    input: Price,
    cache_read: Option<Price>,
    write_5m: Option<Price>,
    write_1h: Option<Price>,
    output: Price,
) -> BucketPrices {
    let write_5m = write_5m.unwrap_or(input).0;
    BucketPrices {
        input: input.0,
        cache_read: cache_read.unwrap_or(input).0,
        cache_write_5m: write_5m,
        cache_write_1h: write_1h.map_or(write_5m, |p| p.0),
        output: output.0,
    }
}

/// Reads a TOML price table; `path` names the file in messages.
pub(crate) fn parse_toml(text: &str, path: &Path) -> Result<Vec<PriceRow>, PriceError> {
    let at = |span: Range<usize>, message: String| {
        let (line, column) = line_column(text, span.start);
        PriceError::At {
            path: path.to_owned(),
            line,
            column,
            message,
        }
    };
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let message = e.message().trim();
        let message = match key_of_value(text, span.start) {
            Some(key) => format!("`{key}`: {message}"),
            None => message.to_owned(),
        };
        at(span, message)
    })?;
    if let Some(format) = &raw.format {
        check_format(format.get_ref()).map_err(|m| at(format.span(), m))?;
    }
    let mut rows = Vec::with_capacity(raw.price.len());
    let mut seen: HashMap<(String, String, Option<Timestamp>), usize> = HashMap::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut alias_of: HashMap<(String, String), String> = HashMap::new();
    for spanned in raw.price {
        let span = spanned.span();
        let (row_line, _) = line_column(text, span.start);
        let r = spanned.into_inner();
        let provider = canonical_provider(r.provider.get_ref()).into_owned();
        if provider.is_empty() {
            return Err(at(r.provider.span(), "`provider` is empty".into()));
        }
        let model = r.model.get_ref().trim().to_ascii_lowercase();
        if model.is_empty() {
            return Err(at(r.model.span(), "`model` is empty".into()));
        }
        let effective = match r.effective.get_ref() {
            toml::Value::Datetime(dt) => parse_time_text(&dt.to_string()),
            toml::Value::String(s) => parse_time_text(s),
            _ => None,
        }
        .ok_or_else(|| {
            at(
                r.effective.span(),
                format!(
                    "`effective`: expected a date or an RFC 3339 date-time, found {}",
                    r.effective.get_ref()
                ),
            )
        })?;
        let key = (provider.clone(), model.clone(), Some(effective));
        if let Some(line) = seen.insert(key, row_line) {
            return Err(at(
                r.effective.span(),
                format!(
                    "a second row for `{provider}/{model}` in force from {effective}; the first is on line {line}"
                ),
            ));
        }
        let id = match &r.id {
            Some(id) => id.get_ref().trim().to_owned(),
            None => default_id(&provider, &model, effective),
        };
        if let Some(line) = ids.insert(id.clone(), row_line) {
            let span = r.id.as_ref().map_or(span.clone(), Spanned::span);
            return Err(at(
                span,
                format!("row id `{id}` is also used on line {line}"),
            ));
        }
        let mut aliases = Vec::with_capacity(r.aliases.len());
        for alias in &r.aliases {
            let name = alias.get_ref().trim().to_ascii_lowercase();
            let owner = alias_of
                .entry((provider.clone(), name.clone()))
                .or_insert_with(|| model.clone());
            if *owner != model {
                return Err(at(
                    alias.span(),
                    format!("alias `{name}` names both `{owner}` and `{model}`"),
                ));
            }
            aliases.push(name);
        }
        let long_context = match r.long_context {
            None => None,
            Some(long) => {
                let long_span = long.span();
                let l = long.into_inner();
                if l.above == 0 {
                    return Err(at(long_span, "`long_context.above` must be above 0".into()));
                }
                Some(LongContext {
                    above: l.above,
                    prices: buckets(
                        l.input,
                        l.cache_read,
                        l.cache_write_5m,
                        l.cache_write_1h,
                        l.output,
                    ),
                })
            }
        };
        let checked = r.checked.map(|v| match v {
            toml::Value::String(s) => s,
            other => other.to_string(),
        });
        let _ = r.notes;
        rows.push(PriceRow {
            id,
            provider,
            model,
            aliases,
            effective: Some(effective),
            source: r.source,
            checked,
            prices: buckets(
                r.input,
                r.cache_read,
                r.cache_write_5m,
                r.cache_write_1h,
                r.output,
            ),
            long_context,
            service_tiers: r
                .service_tiers
                .into_iter()
                .map(|(tier, m)| (tier.trim().to_ascii_lowercase(), m.0))
                .collect(),
            origin: format!("{}:{row_line}", path.display()),
        });
    }
    Ok(rows)
}

/// The key of the `key = value` whose value starts at byte `offset`, to name the field of
/// a bad value (`input`, or `batch` inside `service_tiers = { batch = ... }`); `None` when
/// `offset` is not just after a `key =`.
fn key_of_value(text: &str, offset: usize) -> Option<&str> {
    let before = text.get(..offset)?.trim_end();
    let before = before.strip_suffix('=')?.trim_end();
    let start = before
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '"'))
        .map_or(0, |i| i + 1);
    let key = before[start..].trim_matches('"');
    (!key.is_empty()).then_some(key)
}

/// `provider/model@2025-09-29`, or the full time when the row starts during a day.
fn default_id(provider: &str, model: &str, effective: Timestamp) -> String {
    let date = utc_date(effective);
    let midnight = date
        .to_zoned(jiff::tz::TimeZone::UTC)
        .map(|z| z.timestamp() == effective)
        .unwrap_or(false);
    if midnight {
        format!("{provider}/{model}@{date}")
    } else {
        format!("{provider}/{model}@{effective}")
    }
}

fn check_format(format: &str) -> Result<(), String> {
    let version = format
        .strip_prefix(FORMAT_PREFIX)
        .and_then(|v| v.parse::<u32>().ok())
        .ok_or_else(|| {
            format!("format {format:?} is not a proctor price table ({PRICES_FORMAT})")
        })?;
    if version > FORMAT_VERSION {
        return Err(format!(
            "format {format:?} is newer than this proctor reads ({PRICES_FORMAT}); upgrade proctor"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<PriceRow>, String> {
        parse_toml(text, Path::new("p.toml")).map_err(|e| e.to_string())
    }

    const ROW: &str = r#"
[[price]]
provider = "Anthropic"
model = "claude-sonnet-4-5"
aliases = ["claude-sonnet-4-5-20250929"]
effective = 2025-09-29
source = "list"
input = "3"
cache_read = 0.30
cache_write_5m = "3.75"
output = 15
service_tiers = { Batch = "0.5" }
long_context = { above = 200000, input = "6", output = "22.50" }
"#;

    #[test]
    fn a_full_row_with_defaults_for_missing_buckets() {
        let rows = parse(ROW).unwrap();
        let r = &rows[0];
        assert_eq!(r.id, "anthropic/claude-sonnet-4-5@2025-09-29");
        assert_eq!(r.provider, "anthropic");
        assert_eq!(r.aliases, ["claude-sonnet-4-5-20250929"]);
        assert_eq!(r.prices.cache_read.to_string(), "0.3");
        assert_eq!(
            r.prices.cache_write_1h.to_string(),
            "3.75",
            "1h defaults to 5m"
        );
        assert_eq!(r.prices.output.to_string(), "15");
        assert_eq!(r.service_tiers["batch"].to_string(), "0.5");
        let long = r.long_context.unwrap();
        assert_eq!(long.above, 200_000);
        assert_eq!(
            long.prices.cache_read.to_string(),
            "6",
            "defaults to the long input"
        );
        assert_eq!(r.origin, "p.toml:2");
    }

    #[test]
    fn effective_may_be_a_date_time_or_text_and_ids_say_so() {
        let rows = parse(
            r#"
[[price]]
provider = "acme"
model = "m"
effective = 2026-12-09T12:00:00Z
input = 1
output = 2
[[price]]
provider = "acme"
model = "m"
effective = "2026-12-01"
id = "acme-m-december"
input = 1
output = 2
"#,
        )
        .unwrap();
        assert_eq!(rows[0].id, "acme/m@2026-12-09T12:00:00Z");
        assert_eq!(rows[1].id, "acme-m-december");
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let cases = [
            (
                "[[price]]\nprovider = \"a\"\nmodel = \"m\"\neffective = 2026-01-01\ninput = \"-3\"\noutput = 1\n",
                "p.toml:5:9: `input`: expected a non-negative decimal",
            ),
            (
                "[[price]]\nprovider = \"a\"\nmodel = \"m\"\neffective = 2026-01-01\ninput = \"3\"\noutput = 1\nouput = 2\n",
                "p.toml:7:1: unknown field `ouput`",
            ),
            (
                "[[price]]\nprovider = \"a\"\nmodel = \"m\"\neffective = \"soon\"\ninput = 1\noutput = 1\n",
                "p.toml:4:13: `effective`: expected a date",
            ),
            ("[[price]\n", "p.toml:1:"),
            (
                "format = \"proctor.prices/2\"\n",
                "p.toml:1:10: format \"proctor.prices/2\" is newer",
            ),
            (
                "[[price]]\nprovider = \"a\"\nmodel = \"m\"\neffective = 2026-01-01\noutput = 1\n",
                "p.toml:1:1: missing field `input`",
            ),
        ];
        for (text, expected) in cases {
            let err = parse(text).unwrap_err();
            assert!(
                err.starts_with(expected),
                "{err:?} should start with {expected:?}"
            );
        }
    }

    #[test]
    fn prices_and_multipliers_too_large_to_compute_with_are_refused() {
        let row = |extra: &str| {
            format!(
                "[[price]]\nprovider = \"a\"\nmodel = \"m\"\neffective = 2026-01-01\noutput = 1\n{extra}\n"
            )
        };
        let cases = [
            (
                row("input = 1e27"),
                "p.toml:6:9: `input`: 1000000000000000000000000000 is above 1000000000000 USD per million tokens",
            ),
            (
                row("input = \"1e12\"\nservice_tiers = { batch = \"2e6\" }"),
                "p.toml:7:27: `batch`: 2000000 is above 1000000 as a multiplier",
            ),
            (
                row("input = inf"),
                "p.toml:6:9: `input`: expected a non-negative decimal",
            ),
            (
                row("input = nan"),
                "p.toml:6:9: `input`: expected a non-negative decimal",
            ),
            (
                row("input = 1\nlong_context = { above = 10, input = 1, output = 1e300 }"),
                "p.toml:7:50: `output`: expected a non-negative decimal",
            ),
        ];
        for (text, expected) in cases {
            let err = parse(&text).unwrap_err();
            assert!(
                err.starts_with(expected),
                "{err:?} should start with {expected:?}"
            );
        }
        assert!(
            parse(&row("input = \"1e12\"")).is_ok(),
            "the bound itself is a price"
        );
    }

    #[test]
    fn duplicate_rows_ids_and_aliases_are_refused() {
        let row = |model: &str, effective: &str, extra: &str| {
            format!(
                "[[price]]\nprovider = \"a\"\nmodel = \"{model}\"\neffective = {effective}\ninput = 1\noutput = 1\n{extra}"
            )
        };
        let twice = row("m", "2026-01-01", "") + &row("m", "2026-01-01", "");
        assert!(
            parse(&twice)
                .unwrap_err()
                .starts_with("p.toml:10:13: a second row for `a/m`"),
            "{}",
            parse(&twice).unwrap_err()
        );
        let ids = row("m", "2026-01-01", "id = \"x\"\n") + &row("n", "2026-01-01", "id = \"x\"\n");
        assert!(
            parse(&ids)
                .unwrap_err()
                .contains("row id `x` is also used on line 1")
        );
        let aliases = row("m", "2026-01-01", "aliases = [\"z\"]\n")
            + &row("n", "2026-01-01", "aliases = [\"z\"]\n");
        assert!(
            parse(&aliases)
                .unwrap_err()
                .contains("alias `z` names both `m` and `n`")
        );
    }
}
