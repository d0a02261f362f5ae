//! The page itself: markup, inlined style and script, and the embedded data.

use super::attempts::{Pass, write_attempts};
use super::embed::escaped_json;
use super::{ReportInput, TaskInfo};
use crate::exit::infrastructure;
use base64::Engine;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Write;

const STYLE: &str = include_str!("assets/report.css");
const SCRIPT: &str = include_str!("assets/report.js");

/// A task as the page lists it.
#[derive(Debug, Serialize)]
struct PageTask<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<&'a [String]>,
    /// Set when the input shown is the base task's (a variant changes it).
    #[serde(skip_serializing_if = "Option::is_none")]
    input_of: Option<&'a str>,
}

/// The data the script lays out, besides the attempts.
#[derive(Debug, Serialize)]
struct PageData<'a> {
    title: &'a str,
    sources: Vec<String>,
    summary: Option<&'a Value>,
    scorecards: &'a BTreeMap<String, Value>,
    comparison: Option<&'a Value>,
    tasks: Vec<PageTask<'a>>,
    agents: &'a [String],
    reason_kinds: &'a [String],
    variants: &'a [String],
    index: &'a [super::attempts::IndexRow],
    notes: &'a [String],
    /// The ledger chart as a `data:` URL: an SVG shown as an image never runs script.
    chart: Option<String>,
}

/// `'sha256-…'` of an inline element's text, for the content security policy.
fn csp_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

fn task_entry<'a>(id: &'a str, tasks: &'a BTreeMap<String, TaskInfo>) -> PageTask<'a> {
    let exact = tasks.get(id).map(|info| (info, None));
    let base = || {
        let (base, _) = id.split_once('@')?;
        tasks
            .get_key_value(base)
            .map(|(k, info)| (info, Some(k.as_str())))
    };
    match exact.or_else(base) {
        Some((info, input_of)) => PageTask {
            id,
            input: Some(&info.input),
            tags: Some(&info.tags),
            input_of,
        },
        None => PageTask {
            id,
            input: None,
            tags: None,
            input_of: None,
        },
    }
}

/// The page's content security policy: its own inline script and style, by hash, and
/// nothing else. A server of the page sends it as a header too.
pub fn policy() -> String {
    format!(
        "default-src 'none'; script-src {}; style-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        csp_hash(SCRIPT),
        csp_hash(STYLE)
    )
}

pub fn write_page(out: &mut dyn Write, input: &ReportInput) -> anyhow::Result<()> {
    write_page_with(out, input, None::<fn() -> anyhow::Result<Value>>)
}

/// As [`write_page`], with the summary made by `late` on another thread while the attempts
/// are written (it is needed only at the end of the page), in place of `input.summary`.
pub fn write_page_with(
    out: &mut dyn Write,
    input: &ReportInput,
    late: Option<impl FnOnce() -> anyhow::Result<Value> + Send>,
) -> anyhow::Result<()> {
    match late {
        None => write_parts(out, input, || Ok(None)),
        Some(late) => std::thread::scope(|scope| {
            let summary = scope.spawn(late);
            write_parts(out, input, || match summary.join() {
                Ok(summary) => summary.map(Some),
                Err(panic) => std::panic::resume_unwind(panic),
            })
        }),
    }
}

fn write_parts(
    out: &mut dyn Write,
    input: &ReportInput,
    late: impl FnOnce() -> anyhow::Result<Option<Value>>,
) -> anyhow::Result<()> {
    let io = |e: std::io::Error| infrastructure("the HTML report", e);
    let policy = policy();
    write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>proctor report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <div id=\"app\"><p id=\"loading\">Loading the report… (it needs JavaScript)</p></div>\n\
         <script type=\"application/json\" id=\"attempts\">"
    )
    .map_err(io)?;
    let pass: Pass = write_attempts(
        out,
        &input.results,
        &input.grouping,
        input.k,
        input.end_states.as_ref(),
        input.duplicates,
    )?;
    let late_summary = late()?;
    let comparison = input.comparison.as_ref().or(pass.comparison.as_ref());
    let chart = input.chart_svg.as_ref().map(|svg| {
        format!(
            "data:image/svg+xml;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(svg)
        )
    });
    let data = PageData {
        title: &input.title,
        sources: input
            .results
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        summary: late_summary.as_ref().or(input.summary.as_ref()),
        scorecards: &pass.scorecards,
        comparison,
        tasks: pass
            .tasks
            .iter()
            .map(|id| task_entry(id, &input.tasks))
            .collect(),
        agents: &pass.agents,
        reason_kinds: &pass.reason_kinds,
        variants: &pass.variants,
        index: &pass.index,
        notes: &pass.notes,
        chart,
    };
    out.write_all(b"</script>\n<script type=\"application/json\" id=\"report-data\">")
        .map_err(io)?;
    out.write_all(&escaped_json(&data)).map_err(io)?;
    write!(
        out,
        "</script>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )
    .map_err(io)?;
    Ok(())
}

/// What the pages' own scripts and styles must never contain: the browser APIs that parse text
/// as markup or code, and addresses outside the page (its policy would refuse them anyway).
#[cfg(test)]
pub(crate) const FORBIDDEN_IN_SCRIPTS: &[&str] = &[
    "innerHTML",
    "outerHTML",
    "insertAdjacentHTML",
    "document.write",
    "eval(",
    "new Function",
    "http://",
    "https://",
    "setTimeout(\"",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_never_parses_data_as_markup() {
        for forbidden in FORBIDDEN_IN_SCRIPTS {
            assert!(!SCRIPT.contains(forbidden), "report.js uses {forbidden}");
            assert!(!STYLE.contains(forbidden), "report.css uses {forbidden}");
        }
        assert!(!SCRIPT.contains("</script"));
        assert!(!STYLE.contains("</style"));
    }
}
