//! LiteLLM's JSON price file (`model_prices_and_context_window.json`).
//!
//! Each entry is a model keyed by name with prices per token (`input_cost_per_token`,
//! `output_cost_per_token`, `cache_read_input_token_cost`, `cache_creation_input_token_cost`,
//! `cache_creation_input_token_cost_above_1hr`), an optional long-context tier
//! (`input_cost_per_token_above_200k_tokens`, … for any threshold written `_above_<N>k_tokens`)
//! and batch, flex or priority prices (`input_cost_per_token_batches`, …), which become a
//! service-tier multiplier when input and output are scaled alike. Entries without a
//! per-token input or output price (images, audio, `sample_spec`) are left out. The rows
//! have no date: they are in force since always, and their id is `provider/model@litellm`.

use super::error::PriceError;
use super::names::canonical_provider;
use super::position::line_column;
use super::row::{LongContext, PriceRow};
use super::value::{MAX_MULTIPLIER, MAX_PER_TOKEN, Price};
use crate::BucketPrices;
use rust_decimal::Decimal;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

const MILLION: Decimal = Decimal::from_parts(1_000_000, 0, 0, false, 0);

/// Service tiers and the suffix of their per-token prices.
const TIERS: [(&str, &str); 3] = [
    ("batch", "_batches"),
    ("flex", "_flex"),
    ("priority", "_priority"),
];

/// Reads a LiteLLM price file; `path` names the file in messages.
pub(crate) fn parse_litellm(text: &str, path: &Path) -> Result<Vec<PriceRow>, PriceError> {
    let root: Value = serde_json::from_str(text).map_err(|e| PriceError::At {
        path: path.to_owned(),
        line: e.line(),
        column: e.column(),
        message: format!("invalid JSON: {e}")
            .split(" at line ")
            .next()
            .unwrap_or_default()
            .to_owned(),
    })?;
    let Value::Object(entries) = root else {
        return Err(PriceError::At {
            path: path.to_owned(),
            line: 1,
            column: 1,
            message: "a LiteLLM price file is a JSON object of models".into(),
        });
    };
    let mut rows = Vec::new();
    let mut seen = HashSet::new();
    for (key, entry) in &entries {
        if key == "sample_spec" {
            continue;
        }
        let reader = Entry {
            text,
            path,
            key,
            entry: match entry {
                Value::Object(map) => map,
                _ => continue,
            },
        };
        if let Some(row) = reader.row()?
            && seen.insert((row.provider.clone(), row.model.clone()))
        {
            rows.push(row);
        }
    }
    Ok(rows)
}

struct Entry<'a> {
    text: &'a str,
    path: &'a Path,
    key: &'a str,
    entry: &'a Map<String, Value>,
}

impl Entry<'_> {
    /// Where `field` of this entry is in the file: after the entry's key, else the key.
    fn error(&self, field: &str, message: String) -> PriceError {
        let quoted_key = format!("\"{}\"", self.key.replace('"', "\\\""));
        let key_at = self.text.find(&quoted_key).unwrap_or(0);
        let field_at = self.text[key_at..]
            .find(&format!("\"{field}\""))
            .map_or(key_at, |i| key_at + i);
        let (line, column) = line_column(self.text, field_at);
        PriceError::At {
            path: self.path.to_owned(),
            line,
            column,
            message: format!("model `{}`: {message}", self.key),
        }
    }

    /// A per-token price, as USD per million tokens.
    fn per_million(&self, field: &str) -> Result<Option<Decimal>, PriceError> {
        let price = match self.entry.get(field) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Number(n)) => n
                .as_f64()
                .and_then(|f| Price::parse(&format!("{f}")).filter(|_| f.is_finite())),
            Some(Value::String(s)) => Price::parse(s),
            Some(_) => None,
        };
        match price {
            Some(p) => match p.at_most(MAX_PER_TOKEN, "USD per token") {
                // At most 10⁶ · 10⁶: the product fits.
                Ok(p) => Ok(Some((p.0 * MILLION).normalize())),
                Err(_) => Err(self.error(
                    field,
                    format!(
                        "`{field}`: {} is above {MAX_PER_TOKEN} USD per token, the largest proctor accepts",
                        self.entry[field]
                    ),
                )),
            },
            None => Err(self.error(
                field,
                format!(
                    "`{field}`: expected a non-negative price per token, found {}",
                    self.entry[field]
                ),
            )),
        }
    }

    fn row(&self) -> Result<Option<PriceRow>, PriceError> {
        let (Some(input), Some(output)) = (
            self.per_million("input_cost_per_token")?,
            self.per_million("output_cost_per_token")?,
        ) else {
            return Ok(None);
        };
        let provider_name = match self.entry.get("litellm_provider") {
            Some(Value::String(p)) => p.clone(),
            _ => match self.key.split_once('/') {
                Some((p, _)) => p.to_owned(),
                None => return Ok(None),
            },
        };
        let provider = canonical_provider(&provider_name).into_owned();
        let lower = self.key.trim().to_ascii_lowercase();
        let model = lower
            .strip_prefix(&format!("{}/", provider_name.to_ascii_lowercase()))
            .unwrap_or(&lower)
            .to_owned();
        let write_5m = self
            .per_million("cache_creation_input_token_cost")?
            .unwrap_or(input);
        let prices = BucketPrices {
            input,
            cache_read: self
                .per_million("cache_read_input_token_cost")?
                .unwrap_or(input),
            cache_write_5m: write_5m,
            cache_write_1h: self
                .per_million("cache_creation_input_token_cost_above_1hr")?
                .unwrap_or(write_5m),
            output,
        };
        let mut service_tiers = BTreeMap::new();
        for (tier, suffix) in TIERS {
            let tier_in = self.per_million(&format!("input_cost_per_token{suffix}"))?;
            let tier_out = self.per_million(&format!("output_cost_per_token{suffix}"))?;
            // A ratio that does not fit, or is no sane multiplier, leaves the tier out (its
            // calls unpriced) rather than stopping at a price that is itself fine.
            if let (Some(i), Some(o)) = (tier_in, tier_out)
                && let (Some(ratio_in), Some(ratio_out)) =
                    (i.checked_div(input), o.checked_div(output))
                && ratio_in == ratio_out
                && ratio_in <= MAX_MULTIPLIER
            {
                service_tiers.insert(tier.to_owned(), ratio_in.normalize());
            }
        }
        let (line, _) = line_column(
            self.text,
            self.text.find(&format!("\"{}\"", self.key)).unwrap_or(0),
        );
        Ok(Some(PriceRow {
            id: format!("{provider}/{model}@litellm"),
            provider,
            model,
            aliases: Vec::new(),
            effective: None,
            source: Some(format!("LiteLLM {}", self.path.display())),
            checked: None,
            prices,
            long_context: self.long_context(&prices)?,
            service_tiers,
            origin: format!("{}:{line}", self.path.display()),
        }))
    }

    /// The smallest `input_cost_per_token_above_<N>k_tokens` tier.
    fn long_context(&self, base: &BucketPrices) -> Result<Option<LongContext>, PriceError> {
        let mut thresholds: Vec<(u64, &str)> = self
            .entry
            .keys()
            .filter_map(|k| {
                let n = k
                    .strip_prefix("input_cost_per_token_above_")?
                    .strip_suffix("k_tokens")?;
                Some((
                    n.parse::<u64>().ok()? * 1000,
                    &k["input_cost_per_token_above_".len()..],
                ))
            })
            .collect();
        thresholds.sort();
        let Some((above, tail)) = thresholds.first().copied() else {
            return Ok(None);
        };
        let tier = |field: &str| self.per_million(&format!("{field}_above_{tail}"));
        let Some(input) = tier("input_cost_per_token")? else {
            return Ok(None);
        };
        let write_5m = tier("cache_creation_input_token_cost")?.unwrap_or(input);
        Ok(Some(LongContext {
            above,
            prices: BucketPrices {
                input,
                cache_read: tier("cache_read_input_token_cost")?.unwrap_or(input),
                cache_write_5m: write_5m,
                cache_write_1h: write_5m.max(base.cache_write_1h),
                output: tier("output_cost_per_token")?.unwrap_or(base.output),
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"{
    "sample_spec": {"input_cost_per_token": 0.0, "litellm_provider": "one of the providers"},
    "claude-sonnet-4-5": {
        "litellm_provider": "anthropic",
        "input_cost_per_token": 3e-06,
        "output_cost_per_token": 1.5e-05,
        "cache_creation_input_token_cost": 3.75e-06,
        "cache_creation_input_token_cost_above_1hr": 6e-06,
        "cache_read_input_token_cost": 3e-07,
        "input_cost_per_token_above_200k_tokens": 6e-06,
        "output_cost_per_token_above_200k_tokens": 2.25e-05,
        "cache_read_input_token_cost_above_200k_tokens": 6e-07,
        "cache_creation_input_token_cost_above_200k_tokens": 7.5e-06,
        "input_cost_per_token_batches": 1.5e-06,
        "output_cost_per_token_batches": 7.5e-06,
        "mode": "chat"
    },
    "gemini/gemini-2.5-flash": {
        "litellm_provider": "gemini",
        "input_cost_per_token": 3e-07,
        "output_cost_per_token": 2.5e-06
    },
    "dall-e-3": {"litellm_provider": "openai", "input_cost_per_pixel": 1e-08}
}"#;

    fn parse(text: &str) -> Result<Vec<PriceRow>, String> {
        parse_litellm(text, Path::new("l.json")).map_err(|e| e.to_string())
    }

    #[test]
    fn per_token_prices_become_per_million_with_tiers() {
        let rows = parse(FILE).unwrap();
        assert_eq!(rows.len(), 2, "sample_spec and image models are left out");
        let s = &rows[0];
        assert_eq!(s.id, "anthropic/claude-sonnet-4-5@litellm");
        assert_eq!(s.effective, None);
        let p = s.prices;
        let text = |d: Decimal| d.to_string();
        assert_eq!(
            [
                p.input,
                p.cache_read,
                p.cache_write_5m,
                p.cache_write_1h,
                p.output
            ]
            .map(text),
            ["3", "0.3", "3.75", "6", "15"]
        );
        let long = s.long_context.unwrap();
        assert_eq!(long.above, 200_000);
        assert_eq!(
            [
                long.prices.input,
                long.prices.cache_read,
                long.prices.output
            ]
            .map(text),
            ["6", "0.6", "22.5"]
        );
        assert_eq!(s.service_tiers["batch"].to_string(), "0.5");
        assert_eq!(s.origin, "l.json:3");
        let g = &rows[1];
        assert_eq!(
            (g.provider.as_str(), g.model.as_str()),
            ("google", "gemini-2.5-flash")
        );
    }

    #[test]
    fn bad_json_and_bad_prices_name_line_and_column() {
        let err = parse("{\n  \"m\": {\"input_cost_per_token\": 1e-6,}\n}").unwrap_err();
        assert!(err.starts_with("l.json:2:"), "{err}");
        let err = parse(
            "{\n\"m\": {\"litellm_provider\": \"openai\",\n \"input_cost_per_token\": -1e-6, \"output_cost_per_token\": 1}}",
        )
        .unwrap_err();
        assert_eq!(
            err,
            "l.json:3:2: model `m`: `input_cost_per_token`: expected a non-negative price per token, found -1e-6"
        );
        assert!(parse("[1]").unwrap_err().contains("JSON object of models"));
    }

    #[test]
    fn prices_too_large_to_compute_with_are_refused_and_odd_tiers_left_out() {
        let err = parse(
            "{\n\"m\": {\"litellm_provider\": \"openai\",\n \"input_cost_per_token\": 1, \"output_cost_per_token\": 1e25}}",
        )
        .unwrap_err();
        assert_eq!(
            err,
            "l.json:3:29: model `m`: `output_cost_per_token`: 1e+25 is above 1000000 USD per token, the largest proctor accepts"
        );
        assert!(
            parse(r#"{"m": {"litellm_provider": "openai", "input_cost_per_token": 1e6, "output_cost_per_token": 1e6}}"#)
                .is_ok()
        );
        let rows = parse(
            r#"{"m": {"litellm_provider": "openai", "input_cost_per_token": 1e-20, "output_cost_per_token": 1e-20,
                "input_cost_per_token_batches": 1e6, "output_cost_per_token_batches": 1e6}}"#,
        )
        .unwrap();
        assert!(
            rows[0].service_tiers.is_empty(),
            "{:?}",
            rows[0].service_tiers
        );
    }
}
