//! The UTC day of a `recorded_at` cell, fast for the common `…Z` form.

use crate::book::parse_u64;
use crate::time::{parse_time_text, utc_date};
use jiff::civil::Date;

/// The UTC date of an RFC 3339 time. `YYYY-MM-DDTHH:MM:SS[.f]Z` is checked and read
/// without a general parser (the hot path of a report over millions of rows); any other
/// form goes through [`parse_time_text`].
pub(crate) fn utc_day(cell: &[u8]) -> Option<Date> {
    fast_utc_day(cell).or_else(|| {
        let text = std::str::from_utf8(cell).ok()?;
        parse_time_text(text).map(utc_date)
    })
}

fn fast_utc_day(b: &[u8]) -> Option<Date> {
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    if *b.last()? != b'Z' {
        return None;
    }
    let fraction = &b[19..b.len() - 1];
    if !fraction.is_empty()
        && (fraction[0] != b'.'
            || fraction.len() < 2
            || !fraction[1..].iter().all(u8::is_ascii_digit))
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| parse_u64(&b[r]);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let year = i16::try_from(num(0..4)?).ok()?;
    let month = i8::try_from(num(5..7)?).ok()?;
    let day = i8::try_from(num(8..10)?).ok()?;
    Date::new(year, month, day).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn fast_and_general_forms_agree() {
        assert_eq!(utc_day(b"2026-11-23T09:01:00Z"), Some(date(2026, 11, 23)));
        assert_eq!(
            utc_day(b"2026-11-23T09:01:00.123Z"),
            Some(date(2026, 11, 23))
        );
        assert_eq!(fast_utc_day(b"2026-12-31T23:30:00-02:00"), None);
        assert_eq!(
            utc_day(b"2026-12-31T23:30:00-02:00"),
            Some(date(2027, 1, 1))
        );
    }

    #[test]
    fn impossible_times_are_not_days() {
        for bad in [
            &b"2026-02-30T00:00:00Z"[..],
            b"2026-11-23T24:00:00Z",
            b"2026-11-23T09:01:00.Z",
            b"2026-11-23",
            b"yesterday",
            b"",
        ] {
            assert_eq!(fast_utc_day(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        assert_eq!(utc_day(b"2026-02-30T00:00:00Z"), None);
        assert_eq!(
            utc_day(b"2026-11-23"),
            Some(date(2026, 11, 23)),
            "a bare date is midnight UTC"
        );
    }
}
