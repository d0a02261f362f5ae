//! `--format junit`: one test suite per agent and one test case per task and attempt, so
//! CI dashboards show which attempts failed and why. Failures carry the reasons with their
//! details, crashes are errors, ungraded attempts are skipped; each case has its time.

use super::details::reasons_with_details;
use proctor_core::result::ResultLine;
use proctor_core::summary::{Counted, NO_GROUP, Scorecards, Summary};
use std::io::Write;

/// Escapes text for XML attributes and content, dropping characters XML 1.0 forbids.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 => {}
            c => out.push(c),
        }
    }
    out
}

/// Writes the document: one `<testsuite>` per agent, with that agent's scorecard as
/// properties. `cases` calls its argument once per result line, and is called once per
/// agent, so the lines are streamed again rather than held. `io` says what a failed write
/// means to the caller.
pub fn write(
    out: &mut impl Write,
    cards: &Scorecards,
    title: &str,
    mut cases: impl FnMut(&mut dyn FnMut(&ResultLine) -> anyhow::Result<()>) -> anyhow::Result<()>,
    io: impl Fn(std::io::Error) -> anyhow::Error + Copy,
) -> anyhow::Result<()> {
    let total = |f: fn(&Summary) -> u64| cards.agents.iter().map(|a| f(&a.summary)).sum::<u64>();
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#).map_err(io)?;
    writeln!(
        out,
        r#"<testsuites name="proctor" tests="{}" failures="{}" errors="{}" skipped="{}">"#,
        total(|s| s.attempts),
        total(|s| s.failed.saturating_sub(s.errors)),
        total(|s| s.errors),
        total(|s| s.ungraded)
    )
    .map_err(io)?;
    for agent in &cards.agents {
        let summary = &agent.summary;
        let name = if cards.agents.len() > 1 {
            format!("{title} [{}]", agent.label)
        } else {
            title.to_owned()
        };
        writeln!(
            out,
            r#"  <testsuite name="{}" tests="{}" failures="{}" errors="{}" skipped="{}">"#,
            escape(&name),
            summary.attempts,
            summary.failed.saturating_sub(summary.errors),
            summary.errors,
            summary.ungraded
        )
        .map_err(io)?;
        writeln!(out, "    <properties>").map_err(io)?;
        let properties = [
            ("pass_rate", summary.pass_rate),
            ("pass_rate_ci_low", summary.pass_rate_ci.map(|i| i.low)),
            ("pass_rate_ci_high", summary.pass_rate_ci.map(|i| i.high)),
            ("pass_at_k", summary.pass_at_k),
            ("pass_hat_k", summary.pass_hat_k),
            ("aborted_share", summary.aborted_share),
            ("safety_violation_rate", summary.safety_violation_rate),
        ];
        for (name, value) in properties {
            if let Some(value) = value {
                writeln!(out, r#"      <property name="{name}" value="{value:.4}"/>"#)
                    .map_err(io)?;
            }
        }
        writeln!(out, "    </properties>").map_err(io)?;
        let label = agent.label.as_str();
        cases(&mut |line: &ResultLine| {
            if line.label.as_deref().unwrap_or(NO_GROUP) != label {
                return Ok(());
            }
            test_case(out, line).map_err(io)
        })?;
        writeln!(out, "  </testsuite>").map_err(io)?;
    }
    writeln!(out, "</testsuites>").map_err(io)?;
    out.flush().map_err(io)
}

/// One attempt: a pass, a `<failure>`, an `<error>` when the agent crashed or printed no
/// usable outcome, or `<skipped>` when ungraded; `time` is the attempt's duration.
fn test_case(out: &mut impl Write, line: &ResultLine) -> std::io::Result<()> {
    let class = match &line.label {
        Some(label) => format!("proctor.{label}"),
        None => "proctor".to_owned(),
    };
    let name = format!("{} #{}", line.task, line.attempt);
    let time = line.timings.duration_ms.map_or_else(String::new, |ms| {
        format!(r#" time="{:.3}""#, ms as f64 / 1000.0)
    });
    let open = format!(
        r#"    <testcase classname="{}" name="{}"{time}"#,
        escape(&class),
        escape(&name)
    );
    let shown = reasons_with_details(line);
    match line.passed {
        Some(true) => writeln!(out, "{open}/>"),
        Some(false) if Counted::from(line).errored() => writeln!(
            out,
            "{open}>\n      <error message=\"{}\" type=\"error\">{}</error>\n    </testcase>",
            escape(&line.reasons.join("; ")),
            escape(&shown.join("\n"))
        ),
        Some(false) => writeln!(
            out,
            "{open}>\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
            escape(&line.reasons.join("; ")),
            line.diagnosis.map_or("failed", |d| d.as_str()),
            escape(&shown.join("\n"))
        ),
        None => writeln!(
            out,
            "{open}>\n      <skipped message=\"ungraded: {}\"/>\n    </testcase>",
            escape(&line.reasons.join("; "))
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
    }
}
