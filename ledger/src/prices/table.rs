//! [`PriceTable`]: every price row, and which one is in force for a call.

use super::names::{FIRST_PARTY, ascii_lowercase, canonical_provider, model_candidates};
use super::row::PriceRow;
use jiff::Timestamp;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// (provider, model), both canonical.
type ModelKey = (String, String);

/// Price rows by provider and model, each model's rows oldest first.
#[derive(Debug, Clone, Default)]
pub struct PriceTable {
    models: BTreeMap<ModelKey, Vec<PriceRow>>,
    /// Model names and aliases → the models they name.
    names: HashMap<String, Vec<ModelKey>>,
    /// Which rows these are: a number no other set of rows in this process has (tables
    /// with the same number hold the same rows), so a lookup can be remembered.
    generation: u64,
}

/// The row found for a call, and until when it stays the row in force.
#[derive(Debug, Clone, Copy)]
pub struct RowInForce<'a> {
    /// The model's latest row whose effective time is not after the call (a row without
    /// one is in force from the start).
    pub row: &'a PriceRow,
    /// The effective time of the model's next row: from then on another row is in force.
    pub until: Option<Timestamp>,
}

/// Why a call has no price. Its cost is then unknown (empty and counted), never 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unpriced {
    /// The usage record names no model.
    NoModel,
    /// No row for this model (from this provider).
    UnknownModel {
        /// The provider, when the record names one.
        provider: Option<String>,
        /// The model as recorded.
        model: String,
    },
    /// The record names no provider and several sell the model.
    AmbiguousProvider {
        /// The model as recorded.
        model: String,
        /// Who sells it.
        providers: Vec<String>,
    },
    /// The call is older than the model's first row.
    NotYetInForce {
        /// The model's first row.
        first: String,
    },
    /// The call ran on a service tier the row has no multiplier for.
    UnknownServiceTier {
        /// The row.
        price_id: String,
        /// The tier.
        tier: String,
    },
    /// The call's cost at the row does not fit in a decimal (absurd token counts).
    TooLarge {
        /// The row.
        price_id: String,
    },
}

impl fmt::Display for Unpriced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unpriced::NoModel => f.write_str("the usage names no model"),
            Unpriced::UnknownModel {
                provider: Some(p),
                model,
            } => write!(f, "no price for model `{model}` of provider `{p}`"),
            Unpriced::UnknownModel {
                provider: None,
                model,
            } => {
                write!(f, "no price for model `{model}`")
            }
            Unpriced::AmbiguousProvider { model, providers } => write!(
                f,
                "model `{model}` is sold by {} and the usage names no provider",
                providers.join(", ")
            ),
            Unpriced::NotYetInForce { first } => {
                write!(f, "the call is older than the first price row `{first}`")
            }
            Unpriced::UnknownServiceTier { price_id, tier } => {
                write!(
                    f,
                    "row `{price_id}` has no multiplier for service tier `{tier}`"
                )
            }
            Unpriced::TooLarge { price_id } => {
                write!(
                    f,
                    "the call's cost at row `{price_id}` is too large to compute"
                )
            }
        }
    }
}

impl PriceTable {
    /// A table with no rows: every call is unpriced.
    pub fn empty() -> PriceTable {
        PriceTable::default()
    }

    /// A table of checked rows (see the file readers).
    pub(crate) fn from_rows(rows: Vec<PriceRow>) -> PriceTable {
        let mut table = PriceTable::default();
        for row in rows {
            table
                .models
                .entry((row.provider.clone(), row.model.clone()))
                .or_default()
                .push(row);
        }
        table.reindex();
        table
    }

    /// Every row, by provider and model, oldest first.
    pub fn rows(&self) -> impl Iterator<Item = &PriceRow> {
        self.models.values().flatten()
    }

    /// How many rows the table holds.
    pub fn len(&self) -> usize {
        self.models.values().map(Vec::len).sum()
    }

    /// Whether the table holds no row.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// Lays `other` over this table: a model that `other` prices gets exactly `other`'s
    /// rows (its whole price history is replaced), other models keep theirs.
    pub fn override_with(&mut self, other: PriceTable) {
        for (key, rows) in other.models {
            self.models.insert(key, rows);
        }
        self.reindex();
    }

    /// A number that changes whenever the rows do (see the field).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    fn reindex(&mut self) {
        static GENERATIONS: AtomicU64 = AtomicU64::new(1);
        self.generation = GENERATIONS.fetch_add(1, Ordering::Relaxed);
        self.names.clear();
        for (key, rows) in &mut self.models {
            rows.sort_by_key(|r| r.effective);
            let mut names: Vec<&str> = vec![key.1.as_str()];
            for row in rows.iter() {
                names.extend(row.aliases.iter().map(String::as_str));
            }
            for name in names {
                let keys = self.names.entry(name.to_owned()).or_default();
                if !keys.contains(key) {
                    keys.push(key.clone());
                }
            }
        }
    }

    /// The row in force at `at` for `model` (of `provider`, when known): the latest row
    /// whose effective time is not after `at`.
    ///
    /// The model is matched as given, then without a `models/` or provider prefix, then
    /// without a snapshot date; the first name any row knows decides. Without a provider,
    /// a model sold by several is priced only if exactly one of them is its maker.
    pub fn find(
        &self,
        provider: Option<&str>,
        model: &str,
        at: Timestamp,
    ) -> Result<&PriceRow, Unpriced> {
        self.find_in_force(provider, model, at)
            .map(|found| found.row)
    }

    /// [`PriceTable::find`], with the time until which the row found stays in force: the
    /// same call at any time from the row's effective time until then finds the same row.
    pub fn find_in_force(
        &self,
        provider: Option<&str>,
        model: &str,
        at: Timestamp,
    ) -> Result<RowInForce<'_>, Unpriced> {
        let provider = provider
            .filter(|p| !p.trim().is_empty())
            .map(canonical_provider);
        let provider = provider.as_deref();
        // Most records name a model exactly as the table does: try it before building
        // the other candidates, of which it is the first when it is lowercase and not
        // empty (empty names are never tried).
        let given = model.trim();
        let given_is_first =
            !given.is_empty() && matches!(ascii_lowercase(given), Cow::Borrowed(_));
        if given_is_first && let Some(found) = self.in_force(given, provider, model, at) {
            return found;
        }
        for name in model_candidates(model)
            .iter()
            .skip(usize::from(given_is_first))
        {
            if let Some(found) = self.in_force(name, provider, model, at) {
                return found;
            }
        }
        Err(Unpriced::UnknownModel {
            provider: provider.map(str::to_owned),
            model: model.to_owned(),
        })
    }

    /// The row in force at `at` for the model named `name` (one of the names tried for
    /// `model`), from `provider` when given; `None` when `name` names no such model, so
    /// the next name is tried.
    fn in_force(
        &self,
        name: &str,
        provider: Option<&str>,
        model: &str,
        at: Timestamp,
    ) -> Option<Result<RowInForce<'_>, Unpriced>> {
        let keys = self.names.get(name)?;
        let mut matching = keys.iter().filter(|k| provider.is_none_or(|p| k.0 == p));
        let first = matching.next()?;
        let key = match matching.next() {
            None => first,
            Some(second) => {
                let several: Vec<&ModelKey> = [first, second].into_iter().chain(matching).collect();
                let makers: Vec<&&ModelKey> = several
                    .iter()
                    .filter(|k| FIRST_PARTY.contains(&k.0.as_str()))
                    .collect();
                match makers.as_slice() {
                    [one] => **one,
                    _ => {
                        let mut providers: Vec<String> =
                            several.iter().map(|k| k.0.clone()).collect();
                        providers.sort();
                        return Some(Err(Unpriced::AmbiguousProvider {
                            model: model.to_owned(),
                            providers,
                        }));
                    }
                }
            }
        };
        let rows = &self.models[key];
        Some(
            rows.iter()
                .rposition(|r| r.effective.is_none_or(|e| e <= at))
                .map(|index| RowInForce {
                    row: &rows[index],
                    until: rows.get(index + 1).and_then(|next| next.effective),
                })
                .ok_or_else(|| Unpriced::NotYetInForce {
                    first: rows[0].id.clone(),
                }),
        )
    }
}
