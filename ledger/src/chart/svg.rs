//! The report chart: cost per success (top) and success rate (bottom) per period, one
//! line per group, as one self-contained SVG (no scripts, fonts, images or links: text
//! uses the viewer's sans-serif).
//!
//! Every period between the first and the last with data is on the x axis; a point is
//! missing where a group has no run, no success (cost per success is undefined) or no
//! priced call, and the line breaks there rather than drawing a made-up value.
//!
//! A period whose cost per success counts some calls and leaves others unpriced states a
//! lower bound (docs/cost.md): its point is hollow, and the legend says what a hollow point
//! means, only when the chart has one.

use super::scale::{decimals_for, nice_ticks, usd_label};
use crate::report::{Report, rounded};
use jiff::civil::Date;
use rust_decimal::prelude::ToPrimitive;
use std::collections::BTreeMap;
use std::fmt::Write;

const WIDTH: f64 = 960.0;
const LEFT: f64 = 84.0;
const RIGHT: f64 = 220.0;
const PANEL_TOP: [f64; 2] = [78.0, 372.0];
const PANEL_HEIGHT: f64 = 220.0;
const X_AXIS_ROOM: f64 = 86.0;
/// Colour-blind-safe (Okabe–Ito), then repeated with dashes.
const COLOURS: [&str; 7] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
];
const DASHES: [&str; 3] = ["", "6 4", "2 3"];

/// Escapes text for SVG content and attributes.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

struct Series {
    name: String,
    cost: Vec<Option<f64>>,
    /// Whether the period's cost leaves some calls unpriced, so is only a lower bound.
    lower_bound: Vec<bool>,
    rate: Vec<Option<f64>>,
}

/// The legend's words for a hollow point.
const LOWER_BOUND_LEGEND: [&str; 2] = ["lower bound: some calls", "unpriced"];

/// Renders the chart of `report`.
pub fn render_chart(report: &Report) -> String {
    let period = report.options.period;
    let by = report.options.by;
    let mut periods: Vec<Date> = Vec::new();
    if let (Some(first), Some(last)) = (report.rows.first(), report.rows.last()) {
        let mut start = first.start;
        while start <= last.start && periods.len() < 10_000 {
            periods.push(start);
            start = period.next(start);
        }
    }
    let index: BTreeMap<Date, usize> = periods.iter().enumerate().map(|(i, d)| (*d, i)).collect();
    let mut series: BTreeMap<String, Series> = BTreeMap::new();
    for row in &report.rows {
        let name = row.group.name(by);
        let s = series.entry(name.clone()).or_insert_with(|| Series {
            name,
            cost: vec![None; periods.len()],
            lower_bound: vec![false; periods.len()],
            rate: vec![None; periods.len()],
        });
        let i = index[&row.start];
        s.cost[i] = row.totals.cost_per_success().and_then(|d| d.to_f64());
        s.lower_bound[i] = s.cost[i].is_some() && row.totals.unpriced_calls > 0;
        s.rate[i] = row.totals.success_rate().and_then(|d| d.to_f64());
    }
    let series: Vec<Series> = series.into_values().collect();

    let plot_width = WIDTH - LEFT - RIGHT;
    let height = PANEL_TOP[1] + PANEL_HEIGHT + X_AXIS_ROOM;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        svg,
        r##"<title>Cost per success and success rate by {period}</title>
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="{LEFT}" y="26" font-size="17" font-weight="bold">Cost per success and success rate by {period}</text>"##
    );
    if periods.is_empty() {
        let _ = writeln!(
            svg,
            r##"<text x="{LEFT}" y="{}" fill="#555555">No ledger rows in the chosen range.</text>
</svg>"##,
            PANEL_TOP[0] + 20.0
        );
        return svg;
    }
    let _ = writeln!(
        svg,
        r##"<text x="{LEFT}" y="46" fill="#555555">{} to {}; a gap means no success or nothing priced in that {period}</text>"##,
        xml(&period.name(periods[0])),
        xml(&period.name(*periods.last().expect("not empty")))
    );
    let x_of = |i: usize| {
        if periods.len() == 1 {
            LEFT + plot_width / 2.0
        } else {
            LEFT + plot_width * i as f64 / (periods.len() - 1) as f64
        }
    };

    // Top panel: cost per success.
    let max_cost = series
        .iter()
        .flat_map(|s| s.cost.iter().flatten())
        .fold(0.0f64, |a, b| a.max(*b));
    let (step, top) = nice_ticks(max_cost, 5);
    let decimals = decimals_for(step);
    let cost_ticks: Vec<(f64, String)> = (0..)
        .map(|k| k as f64 * step)
        .take_while(|v| *v <= top * 1.000_001)
        .map(|v| (v / top, usd_label(v, decimals)))
        .collect();
    panel(
        &mut svg,
        PANEL_TOP[0],
        "cost per success (USD)",
        &cost_ticks,
        plot_width,
    );
    // Bottom panel: success rate.
    let rate_ticks: Vec<(f64, String)> = (0..=4)
        .map(|k| (k as f64 / 4.0, format!("{}%", k * 25)))
        .collect();
    panel(
        &mut svg,
        PANEL_TOP[1],
        "success rate",
        &rate_ticks,
        plot_width,
    );

    // X axis labels under each panel, thinned to at most about 16.
    let every = periods.len().div_ceil(16).max(1);
    for (i, start) in periods.iter().enumerate() {
        let x = x_of(i);
        for top_y in PANEL_TOP {
            let _ = writeln!(
                svg,
                r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#999999"/>"##,
                top_y + PANEL_HEIGHT,
                top_y + PANEL_HEIGHT + 4.0
            );
        }
        if i % every == 0 || i + 1 == periods.len() {
            let y = PANEL_TOP[1] + PANEL_HEIGHT + 16.0;
            let _ = writeln!(
                svg,
                r##"<text x="{x:.1}" y="{y:.1}" text-anchor="end" transform="rotate(-40 {x:.1} {y:.1})" fill="#333333">{}</text>"##,
                xml(&period.name(*start))
            );
        }
    }

    // Lines and points.
    for (n, s) in series.iter().enumerate() {
        let colour = COLOURS[n % COLOURS.len()];
        let dash = DASHES[(n / COLOURS.len()) % DASHES.len()];
        let dash_attr = if dash.is_empty() {
            String::new()
        } else {
            format!(r#" stroke-dasharray="{dash}""#)
        };
        let exact = vec![false; periods.len()];
        for (values, lower_bound, top_y, scale_top) in [
            (&s.cost, &s.lower_bound, PANEL_TOP[0], top),
            (&s.rate, &exact, PANEL_TOP[1], 1.0),
        ] {
            let y_of = |v: f64| top_y + PANEL_HEIGHT * (1.0 - (v / scale_top).clamp(0.0, 1.0));
            let mut run: Vec<(f64, f64, bool)> = Vec::new();
            let mut runs: Vec<Vec<(f64, f64, bool)>> = Vec::new();
            for (i, v) in values.iter().enumerate() {
                match v {
                    Some(v) => run.push((x_of(i), y_of(*v), lower_bound[i])),
                    None if !run.is_empty() => runs.push(std::mem::take(&mut run)),
                    None => {}
                }
            }
            if !run.is_empty() {
                runs.push(run);
            }
            for run in runs {
                if run.len() > 1 {
                    let points: Vec<String> = run
                        .iter()
                        .map(|(x, y, _)| format!("{x:.1},{y:.1}"))
                        .collect();
                    let _ = writeln!(
                        svg,
                        r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2.2"{dash_attr}/>"#,
                        points.join(" ")
                    );
                }
                for (x, y, lower_bound) in run {
                    let _ = if lower_bound {
                        writeln!(svg, "{}", hollow_point(x, y, colour))
                    } else {
                        writeln!(
                            svg,
                            r#"<circle cx="{x:.1}" cy="{y:.1}" r="3.2" fill="{colour}"/>"#
                        )
                    };
                }
            }
        }
        // Legend entry, with the latest period's values.
        let y = PANEL_TOP[0] + 14.0 + 52.0 * n as f64;
        let x = WIDTH - RIGHT + 24.0;
        let latest = report
            .rows
            .iter()
            .rev()
            .find(|r| r.group.name(by) == s.name);
        let at_least = match latest.is_some_and(|r| r.totals.unpriced_calls > 0) {
            true => "≥ ",
            false => "",
        };
        let cost = latest
            .and_then(|r| r.totals.cost_per_success())
            .map_or_else(
                || "-".to_owned(),
                |c| format!("{at_least}${}", rounded(Some(c), 4)),
            );
        let rate = latest
            .and_then(|r| r.totals.success_rate())
            .and_then(|r| r.to_f64())
            .map_or_else(|| "-".to_owned(), |r| format!("{:.0}%", r * 100.0));
        let _ = writeln!(
            svg,
            r##"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{colour}" stroke-width="3"{dash_attr}/>
<text x="{}" y="{}">{}</text>
<text x="{}" y="{}" font-size="11" fill="#555555">latest: {cost} per success</text>
<text x="{}" y="{}" font-size="11" fill="#555555">success rate {rate}</text>"##,
            x + 22.0,
            x + 28.0,
            y + 4.0,
            xml(&s.name),
            x + 28.0,
            y + 19.0,
            x + 28.0,
            y + 33.0,
        );
    }
    if series.iter().any(|s| s.lower_bound.contains(&true)) {
        let y = PANEL_TOP[0] + 14.0 + 52.0 * series.len() as f64;
        let x = WIDTH - RIGHT + 24.0;
        let _ = writeln!(
            svg,
            r##"{}
<text x="{}" y="{}" font-size="11" fill="#555555">{}</text>
<text x="{}" y="{}" font-size="11" fill="#555555">{}</text>"##,
            hollow_point(x + 11.0, y, "#555555"),
            x + 28.0,
            y + 4.0,
            LOWER_BOUND_LEGEND[0],
            x + 28.0,
            y + 18.0,
            LOWER_BOUND_LEGEND[1],
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// A point whose value is a lower bound: a ring in the line's colour, white inside.
fn hollow_point(x: f64, y: f64, colour: &str) -> String {
    format!(
        r##"<circle cx="{x:.1}" cy="{y:.1}" r="3.6" fill="#ffffff" stroke="{colour}" stroke-width="1.8" data-lower-bound="true"/>"##
    )
}

/// A panel's frame, grid lines and y labels; `ticks` are (share of the height, label).
fn panel(svg: &mut String, top: f64, title: &str, ticks: &[(f64, String)], plot_width: f64) {
    let bottom = top + PANEL_HEIGHT;
    let _ = writeln!(
        svg,
        r##"<text x="{LEFT}" y="{:.1}" font-weight="bold" fill="#333333">{}</text>"##,
        top - 10.0,
        xml(title)
    );
    for (share, label) in ticks {
        let y = bottom - PANEL_HEIGHT * share;
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e3e3e3"/>
<text x="{:.1}" y="{:.1}" text-anchor="end" fill="#333333">{}</text>"##,
            LEFT + plot_width,
            LEFT - 8.0,
            y + 4.0,
            xml(label)
        );
    }
    let _ = writeln!(
        svg,
        r##"<line x1="{LEFT}" y1="{top:.1}" x2="{LEFT}" y2="{bottom:.1}" stroke="#666666"/>
<line x1="{LEFT}" y1="{bottom:.1}" x2="{:.1}" y2="{bottom:.1}" stroke="#666666"/>"##,
        LEFT + plot_width
    );
}

#[cfg(test)]
mod tests {
    use super::xml;

    #[test]
    fn text_is_escaped() {
        assert_eq!(xml("<v1 & \"x\">\n"), "&lt;v1 &amp; &quot;x&quot;&gt; ");
    }
}
