//! The SVG chart of a period report.

mod scale;
mod svg;

pub use svg::render_chart;
