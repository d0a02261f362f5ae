//! The SVG chart of a period report.

mod scale;
mod svg;

pub use svg::render_chart;

#[cfg(test)]
mod lower_bound_tests;
