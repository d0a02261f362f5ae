//! [`Price`]: a non-negative decimal read from a price file as text or a number, no larger
//! than [`MAX_PER_MILLION`].

use rust_decimal::Decimal;
use serde::de::{self, Deserializer, Visitor};
use std::fmt;
use std::str::FromStr;

/// The largest price per million tokens proctor accepts: 10¹² USD, i.e. 10⁶ USD per token.
///
/// Far above any real price, and small enough that a price read per token (LiteLLM) turns
/// into a price per million, and a call's tokens times it, without leaving what a
/// [`Decimal`] holds for any realistic count; costs are still computed with checked
/// arithmetic for the rest.
pub(crate) const MAX_PER_MILLION: Decimal = Decimal::from_parts(3_567_587_328, 232, 0, false, 0);

/// The largest price per token (LiteLLM's unit): [`MAX_PER_MILLION`] / 10⁶.
pub(crate) const MAX_PER_TOKEN: Decimal = Decimal::from_parts(1_000_000, 0, 0, false, 0);

/// The largest service-tier multiplier accepted (real ones are 0.5 or 2).
pub(crate) const MAX_MULTIPLIER: Decimal = Decimal::from_parts(1_000_000, 0, 0, false, 0);

/// A non-negative decimal: USD per million tokens, or a multiplier.
///
/// Text (`"3.75"`) is exact. A number is read through its shortest decimal spelling, which
/// is the spelling in the file for any price written with up to 15 significant digits
/// (`3.75`, `3e-06`), so floats in TOML or LiteLLM's JSON lose nothing either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Price(pub Decimal);

impl Price {
    /// Reads text; `None` for anything that is not a finite, non-negative decimal.
    pub fn parse(text: &str) -> Option<Price> {
        let text = text.trim();
        let value = Decimal::from_str(text)
            .or_else(|_| Decimal::from_scientific(text))
            .ok()?;
        (!value.is_sign_negative() || value.is_zero()).then(|| Price(value.normalize()))
    }

    fn from_f64(value: f64) -> Option<Price> {
        if !value.is_finite() {
            return None;
        }
        // `{}` prints the shortest text that reads back as the same float.
        Price::parse(&format!("{value}"))
    }
}

const EXPECTED: &str = "a non-negative decimal (\"3.75\" or 3.75)";

impl<'de> de::Deserialize<'de> for Price {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Price, D::Error> {
        struct PriceVisitor;
        impl Visitor<'_> for PriceVisitor {
            type Value = Price;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Price, E> {
                Price::parse(v)
                    .ok_or_else(|| E::custom(format!("expected {EXPECTED}, found {v:?}")))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Price, E> {
                if v < 0 {
                    return Err(E::custom(format!("expected {EXPECTED}, found {v}")));
                }
                Ok(Price(Decimal::from(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Price, E> {
                Ok(Price(Decimal::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Price, E> {
                // `{:?}` keeps 1e300 short where `{}` writes every digit.
                Price::from_f64(v)
                    .ok_or_else(|| E::custom(format!("expected {EXPECTED}, found {v:?}")))
            }
        }
        let price = deserializer.deserialize_any(PriceVisitor)?;
        price
            .at_most(MAX_PER_MILLION, "USD per million tokens")
            .map_err(de::Error::custom)
    }
}

impl Price {
    /// The price itself when it is at most `max`, else why not; `unit` names what `max` is in.
    pub fn at_most(self, max: Decimal, unit: &str) -> Result<Price, String> {
        if self.0 <= max {
            Ok(self)
        } else {
            Err(format!(
                "{} is above {max} {unit}, the largest proctor accepts",
                self.0
            ))
        }
    }
}

/// A service-tier multiplier: a [`Price`] of at most [`MAX_MULTIPLIER`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Multiplier(pub Decimal);

impl<'de> de::Deserialize<'de> for Multiplier {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Multiplier, D::Error> {
        let price = <Price as de::Deserialize>::deserialize(deserializer)?;
        let price = price
            .at_most(MAX_MULTIPLIER, "as a multiplier")
            .map_err(de::Error::custom)?;
        Ok(Multiplier(price.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(p: Option<Price>) -> Option<String> {
        p.map(|p| p.0.to_string())
    }

    #[test]
    fn text_and_floats_read_as_written() {
        assert_eq!(text(Price::parse("3.75")), Some("3.75".into()));
        assert_eq!(text(Price::parse(" 0.30 ")), Some("0.3".into()));
        assert_eq!(text(Price::parse("3e-06")), Some("0.000003".into()));
        assert_eq!(text(Price::from_f64(3e-06)), Some("0.000003".into()));
        assert_eq!(text(Price::from_f64(1.25e-7)), Some("0.000000125".into()));
        assert_eq!(
            text(Price::from_f64(0.1 + 0.2)),
            Some("0.30000000000000004".into())
        );
        assert_eq!(text(Price::parse("0")), Some("0".into()));
        assert_eq!(text(Price::parse("-0")), Some("0".into()));
    }

    #[test]
    fn negative_and_non_numbers_are_refused() {
        for bad in ["-1", "abc", "", "1.2.3", "NaN"] {
            assert_eq!(Price::parse(bad), None, "{bad}");
        }
        assert_eq!(Price::from_f64(f64::NAN), None);
        assert_eq!(Price::from_f64(f64::INFINITY), None);
        assert_eq!(Price::from_f64(-0.5), None);
    }

    #[test]
    fn bounds_are_what_they_say() {
        assert_eq!(MAX_PER_MILLION.to_string(), "1000000000000");
        assert_eq!(MAX_PER_MILLION / MAX_PER_TOKEN, Decimal::from(1_000_000));
        let at = |text: &str| Price::parse(text).unwrap().at_most(MAX_PER_MILLION, "USD");
        assert!(at("1000000000000").is_ok());
        assert_eq!(
            at("1e13").unwrap_err(),
            "10000000000000 is above 1000000000000 USD, the largest proctor accepts"
        );
    }
}
