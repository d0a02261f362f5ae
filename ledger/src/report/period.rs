//! Report periods: UTC days, ISO weeks (`%G-W%V`, Monday to Sunday) and calendar months.

use jiff::ToSpan;
use jiff::civil::{Date, ISOWeekDate, Weekday};
use std::fmt;
use std::str::FromStr;

/// How rows are bucketed in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Period {
    /// A UTC calendar day: `2026-11-23`.
    Day,
    /// An ISO 8601 week, Monday to Sunday: `2026-W48`. The year is the ISO week-based
    /// year, so 2027-01-01 (a Friday) is in `2026-W53`.
    Week,
    /// A calendar month: `2026-11`.
    Month,
}

impl Period {
    /// The first day of the period holding `date`.
    pub fn start_of(self, date: Date) -> Date {
        match self {
            Period::Day => date,
            Period::Week => {
                let iso = date.iso_week_date();
                ISOWeekDate::new(iso.year(), iso.week(), Weekday::Monday)
                    .map(|w| w.date())
                    .unwrap_or(date)
            }
            Period::Month => date.first_of_month(),
        }
    }

    /// The last day of the period starting on `start`.
    pub fn end_of(self, start: Date) -> Date {
        match self {
            Period::Day => start,
            Period::Week => start.checked_add(6.days()).unwrap_or(start),
            Period::Month => start.last_of_month(),
        }
    }

    /// The first day of the next period.
    pub fn next(self, start: Date) -> Date {
        self.end_of(start).tomorrow().unwrap_or(start)
    }

    /// The period's name: `2026-11-23`, `2026-W48` or `2026-11`.
    pub fn name(self, start: Date) -> String {
        match self {
            Period::Day => start.to_string(),
            Period::Week => {
                let iso = start.iso_week_date();
                format!("{:04}-W{:02}", iso.year(), iso.week())
            }
            Period::Month => format!("{:04}-{:02}", start.year(), start.month()),
        }
    }
}

impl FromStr for Period {
    type Err = String;
    fn from_str(text: &str) -> Result<Period, String> {
        match text {
            "day" => Ok(Period::Day),
            "week" => Ok(Period::Week),
            "month" => Ok(Period::Month),
            other => Err(format!(
                "unknown period {other:?} (expected day, week or month)"
            )),
        }
    }
}

impl fmt::Display for Period {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Period::Day => "day",
            Period::Week => "week",
            Period::Month => "month",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    fn week(d: Date) -> (String, Date, Date) {
        let start = Period::Week.start_of(d);
        (Period::Week.name(start), start, Period::Week.end_of(start))
    }

    #[test]
    fn iso_weeks_across_year_boundaries() {
        // 2026-12-31 is a Thursday and 2027-01-01 a Friday: both in 2026's 53rd week.
        assert_eq!(
            week(date(2026, 12, 31)),
            ("2026-W53".into(), date(2026, 12, 28), date(2027, 1, 3))
        );
        assert_eq!(week(date(2027, 1, 1)).0, "2026-W53");
        assert_eq!(week(date(2027, 1, 3)).0, "2026-W53", "Sunday ends the week");
        // 2027-01-04 is the Monday that starts 2027-W01.
        assert_eq!(
            week(date(2027, 1, 4)),
            ("2027-W01".into(), date(2027, 1, 4), date(2027, 1, 10))
        );
        // 2024-12-30 is a Monday in 2025's first week.
        assert_eq!(
            week(date(2024, 12, 30)),
            ("2025-W01".into(), date(2024, 12, 30), date(2025, 1, 5))
        );
        assert_eq!(
            week(date(2026, 11, 23)).0,
            "2026-W48",
            "the ISO week of docs/cost.md"
        );
    }

    #[test]
    fn matches_strftime_iso_week_on_every_day_of_several_years() {
        let mut d = date(2023, 12, 20);
        while d < date(2028, 1, 10) {
            let start = Period::Week.start_of(d);
            assert_eq!(
                Period::Week.name(start),
                d.strftime("%G-W%V").to_string(),
                "{d}"
            );
            assert_eq!(start.weekday(), Weekday::Monday);
            assert!(start <= d && d <= Period::Week.end_of(start));
            d = d.tomorrow().unwrap();
        }
    }

    #[test]
    fn days_and_months() {
        let d = date(2024, 2, 17);
        assert_eq!(Period::Month.start_of(d), date(2024, 2, 1));
        assert_eq!(Period::Month.end_of(date(2024, 2, 1)), date(2024, 2, 29));
        assert_eq!(Period::Month.name(date(2024, 2, 1)), "2024-02");
        assert_eq!(Period::Month.next(date(2024, 12, 1)), date(2025, 1, 1));
        assert_eq!(Period::Day.name(d), "2024-02-17");
        assert_eq!(Period::Day.end_of(d), d);
        assert_eq!("week".parse::<Period>(), Ok(Period::Week));
        assert!("fortnight".parse::<Period>().is_err());
    }
}
