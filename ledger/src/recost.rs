//! Re-pricing a ledger with another price table, into a new file (docs/cost.md: history is
//! never re-priced silently, only when asked).
//!
//! Each row is priced again at its `recorded_at` with its own tokens, provider, model and
//! service tier. A row sums calls of one tier: a row priced with `+long_context` stays in
//! the long-context tier; any other row is compared with the threshold by its input per
//! call (exact for a one-call row, which is the common case once a request is that large).
//! Rows without calls are copied as they are.

use crate::book::Col;
use crate::book::{LedgerError, LedgerReader, LedgerRow, csv_writer, write_header};
use crate::prices::PriceTable;
use crate::pricing::{Call, LONG_CONTEXT_SUFFIX, quote};
use crate::time::parse_time_text;
use std::io::{Read, Write};
use std::path::Path;

/// What a re-pricing did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecostSummary {
    /// Rows read and written.
    pub rows: u64,
    /// Rows whose cost or price row changed.
    pub changed: u64,
    /// Rows with calls that are priced now.
    pub priced: u64,
    /// Rows with calls that have no price in the new table.
    pub unpriced: u64,
}

/// Writes `reader`'s rows to `out` with costs from `table`; `out_path` names `out` in
/// messages.
///
/// # Errors
///
/// The first malformed row of the ledger, or a write error.
pub fn recost<R: Read, W: Write>(
    reader: &mut LedgerReader<R>,
    table: &PriceTable,
    out: W,
    out_path: &Path,
) -> Result<RecostSummary, LedgerError> {
    let write_err = |e: csv::Error| LedgerError::io(out_path, "cannot write ledger", e.into());
    let mut csv = csv_writer(out);
    write_header(&mut csv).map_err(write_err)?;
    let mut summary = RecostSummary::default();
    while let Some(raw) = reader.next_row()? {
        let mut row: LedgerRow = raw.to_row()?;
        summary.rows += 1;
        if row.calls > 0 || !row.model.is_empty() {
            let at = parse_time_text(&row.recorded_at).ok_or_else(|| {
                raw.error(
                    Col::RecordedAt,
                    format!("expected an RFC 3339 time, found {:?}", row.recorded_at),
                )
            })?;
            let t = &row.tokens;
            let input = t
                .input_tokens
                .saturating_add(t.cache_read_tokens)
                .saturating_add(t.cache_write_tokens());
            let request_input = if row.price_id.contains(LONG_CONTEXT_SUFFIX) {
                u64::MAX
            } else {
                input / row.calls.max(1)
            };
            let nonempty = |s: &str| (!s.is_empty()).then_some(s.to_owned());
            let provider = nonempty(&row.provider);
            let model = nonempty(&row.model);
            let tier = nonempty(&row.service_tier);
            let call = Call {
                provider: provider.as_deref(),
                model: model.as_deref(),
                tokens: &row.tokens,
                at,
                service_tier: tier.as_deref(),
                request_input,
            };
            let (cost, id) = match quote(table, &call) {
                Ok(q) => {
                    summary.priced += 1;
                    (Some(q.usd), q.price_id)
                }
                Err(_) => {
                    summary.unpriced += 1;
                    (None, String::new())
                }
            };
            if cost.map(|c| c.normalize()) != row.cost_usd.map(|c| c.normalize())
                || id != row.price_id
            {
                summary.changed += 1;
            }
            row.cost_usd = cost;
            row.price_id = id;
        }
        row.write(&mut csv).map_err(write_err)?;
    }
    csv.flush()
        .map_err(|e| LedgerError::io(out_path, "cannot write ledger", e))?;
    Ok(summary)
}
