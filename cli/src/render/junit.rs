//! `--format junit`: one test case per task and attempt, so CI dashboards show which
//! attempts failed and why. Failures carry the reasons; ungraded attempts are skipped.

use proctor_core::result::ResultLine;
use proctor_core::summary::Summary;
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

/// Writes the document; `cases` calls its argument once per result line.
pub fn write(
    out: &mut impl Write,
    summary: &Summary,
    title: &str,
    cases: impl FnOnce(&mut dyn FnMut(&ResultLine) -> anyhow::Result<()>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let io = |e: std::io::Error| crate::exit::infrastructure("stdout", e);
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#).map_err(io)?;
    writeln!(
        out,
        r#"<testsuites name="proctor" tests="{}" failures="{}" skipped="{}">"#,
        summary.attempts, summary.failed, summary.ungraded
    )
    .map_err(io)?;
    writeln!(
        out,
        r#"  <testsuite name="{}" tests="{}" failures="{}" errors="0" skipped="{}">"#,
        escape(title),
        summary.attempts,
        summary.failed,
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
    ];
    for (name, value) in properties {
        if let Some(value) = value {
            writeln!(out, r#"      <property name="{name}" value="{value:.4}"/>"#).map_err(io)?;
        }
    }
    writeln!(out, "    </properties>").map_err(io)?;
    cases(&mut |line: &ResultLine| {
        let class = match &line.label {
            Some(label) => format!("proctor.{label}"),
            None => "proctor".to_owned(),
        };
        let name = format!("{} #{}", line.task, line.attempt);
        let open = format!(
            r#"    <testcase classname="{}" name="{}""#,
            escape(&class),
            escape(&name)
        );
        match line.passed {
            Some(true) => writeln!(out, "{open}/>"),
            Some(false) => writeln!(
                out,
                "{open}>\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                escape(&line.reasons.join("; ")),
                line.diagnosis.map_or("failed", |d| d.as_str()),
                escape(&line.reasons.join("\n"))
            ),
            None => writeln!(
                out,
                "{open}>\n      <skipped message=\"ungraded: {}\"/>\n    </testcase>",
                escape(&line.reasons.join("; "))
            ),
        }
        .map_err(io)
    })?;
    writeln!(out, "  </testsuite>\n</testsuites>").map_err(io)?;
    out.flush().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
    }
}
