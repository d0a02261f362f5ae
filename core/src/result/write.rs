//! Writing a [`ResultLine`] as compact JSON by hand: the same text as its `Serialize`
//! derive (a test holds the two together), at a fraction of the cost, because a large log
//! writes millions of these lines.

use super::json_text::{
    boolean, opt_boolean, opt_decimal, opt_string, serde, string, strings, uint, value, values,
};
use super::{Cost, ModelCost, ResultLine};
use crate::grade::{CheckResult, Diagnosis};
use crate::outcome::Step;

/// Appends `"name":` (a field name that needs no escaping), after a comma unless first.
fn key(out: &mut Vec<u8>, name: &str, first: bool) {
    if !first {
        out.push(b',');
    }
    out.push(b'"');
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
}

/// Appends `line` as one line of compact JSON, without a newline.
pub fn write_line(out: &mut Vec<u8>, line: &ResultLine) {
    out.push(b'{');
    key(out, "format", true);
    string(out, &line.format);
    key(out, "task", false);
    string(out, &line.task);
    key(out, "attempt", false);
    uint(out, line.attempt);
    key(out, "label", false);
    opt_string(out, line.label.as_deref());
    key(out, "passed", false);
    opt_boolean(out, line.passed);
    key(out, "reasons", false);
    strings(out, &line.reasons);
    key(out, "diagnosis", false);
    opt_string(out, line.diagnosis.map(Diagnosis::as_str));
    key(out, "checks", false);
    out.push(b'[');
    for (index, check) in line.checks.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        write_check(out, check);
    }
    out.push(b']');
    key(out, "status", false);
    opt_string(out, line.status.map(|s| s.as_str()));
    key(out, "answer", false);
    opt_string(out, line.answer.as_deref());
    key(out, "tool_calls", false);
    uint(out, line.tool_calls);
    key(out, "tools_used", false);
    strings(out, &line.tools_used);
    key(out, "trajectory", false);
    out.push(b'[');
    for (index, step) in line.trajectory.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        write_step(out, step);
    }
    out.push(b']');
    key(out, "steps", false);
    uint(out, line.steps);
    key(out, "error", false);
    serde(out, &line.error);
    key(out, "usage", false);
    values(out, &line.usage);
    key(out, "step_efficiency", false);
    serde(out, &line.step_efficiency);
    key(out, "tool_correctness", false);
    serde(out, &line.tool_correctness);
    if let Some(judge) = &line.judge {
        key(out, "judge", false);
        value(out, judge);
    }
    key(out, "cost", false);
    write_cost(out, &line.cost);
    key(out, "timings", false);
    serde(out, &line.timings);
    key(out, "task_digest", false);
    string(out, &line.task_digest);
    if let Some(seed) = line.seed {
        key(out, "seed", false);
        uint(out, seed);
    }
    if let Some(process) = &line.process {
        key(out, "process", false);
        serde(out, process);
    }
    out.push(b'}');
}

fn write_check(out: &mut Vec<u8>, check: &CheckResult) {
    out.push(b'{');
    key(out, "category", true);
    string(out, check.category.as_str());
    key(out, "check", false);
    string(out, &check.check);
    key(out, "passed", false);
    boolean(out, check.passed);
    key(out, "gating", false);
    boolean(out, check.gating);
    if let Some(failure) = &check.failure {
        key(out, "failure", false);
        string(out, failure);
    }
    out.push(b'}');
}

fn write_step(out: &mut Vec<u8>, step: &Step) {
    out.push(b'{');
    key(out, "tool", true);
    string(out, &step.tool);
    key(out, "args", false);
    value(out, &step.args);
    if let Some(error) = &step.error {
        key(out, "error", false);
        value(out, error);
    }
    if let Some(result) = &step.result {
        key(out, "result", false);
        value(out, result);
    }
    out.push(b'}');
}

fn write_cost(out: &mut Vec<u8>, cost: &Cost) {
    out.push(b'{');
    key(out, "usd", true);
    opt_decimal(out, cost.usd);
    key(out, "tokens", false);
    uint(out, cost.tokens);
    key(out, "unpriced_calls", false);
    uint(out, cost.unpriced_calls);
    key(out, "agent_usd", false);
    opt_decimal(out, cost.agent_usd);
    key(out, "judge_usd", false);
    opt_decimal(out, cost.judge_usd);
    key(out, "price_ids", false);
    strings(out, &cost.price_ids);
    if let Some(at) = &cost.priced_at {
        key(out, "priced_at", false);
        string(out, at);
    }
    if !cost.models.is_empty() {
        key(out, "models", false);
        out.push(b'[');
        for (index, model) in cost.models.iter().enumerate() {
            if index > 0 {
                out.push(b',');
            }
            write_model_cost(out, model);
        }
        out.push(b']');
    }
    out.push(b'}');
}

fn write_model_cost(out: &mut Vec<u8>, model: &ModelCost) {
    out.push(b'{');
    key(out, "role", true);
    string(out, model.role.as_str());
    key(out, "provider", false);
    opt_string(out, model.provider.as_deref());
    key(out, "model", false);
    opt_string(out, model.model.as_deref());
    if let Some(tier) = &model.service_tier {
        key(out, "service_tier", false);
        string(out, tier);
    }
    for (name, count) in [
        ("calls", model.calls),
        ("input_tokens", model.input_tokens),
        ("cache_read_tokens", model.cache_read_tokens),
        ("cache_write_5m_tokens", model.cache_write_5m_tokens),
        ("cache_write_1h_tokens", model.cache_write_1h_tokens),
        ("output_tokens", model.output_tokens),
        ("reasoning_tokens", model.reasoning_tokens),
    ] {
        key(out, name, false);
        uint(out, count);
    }
    key(out, "usd", false);
    opt_decimal(out, model.usd);
    if let Some(id) = &model.price_id {
        key(out, "price_id", false);
        string(out, id);
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::{CheckName, Grade};
    use crate::outcome::{AgentError, Outcome, Status};
    use crate::result::{CallRole, ProcessInfo, Timings};
    use crate::task::GateCategory;
    use proptest::prelude::*;
    use rust_decimal::Decimal;
    use serde_json::json;

    fn assert_same_as_serde(line: &ResultLine) {
        let mut ours = Vec::new();
        write_line(&mut ours, line);
        let serde = serde_json::to_string(line).unwrap();
        assert_eq!(String::from_utf8(ours).unwrap(), serde);
    }

    fn full_line(text: &str, number: u64, share: f64) -> ResultLine {
        let outcome = Outcome {
            status: Some(Status::GaveUp),
            answer: Some(format!("{text} answer")),
            tool_calls: number,
            tools_used: vec![text.to_owned(), "refund".into()],
            trajectory: vec![
                Step {
                    tool: text.to_owned(),
                    args: json!({"order_id": text, "n": number, "f": -1.5, "list": [null, true]}),
                    error: Some(json!({"type": "KeyError"})),
                    result: Some(json!("ok")),
                },
                Step {
                    tool: "lookup".into(),
                    args: json!([text, -3]),
                    error: None,
                    result: None,
                },
            ],
            usage: vec![json!({"provider": "anthropic", "input_tokens": number})],
            steps: number,
            error: Some(AgentError {
                kind: text.to_owned(),
                message: "boom".into(),
            }),
        };
        let grade = Grade {
            passed: Some(false),
            reasons: vec![format!("rule: {text}"), "not final".into()],
            checks: vec![
                CheckResult {
                    category: GateCategory::Process,
                    check: CheckName::from(text),
                    passed: false,
                    gating: true,
                    failure: Some(format!("rule: {text}")),
                },
                CheckResult {
                    category: GateCategory::EndState,
                    check: CheckName::from("file exists"),
                    passed: true,
                    gating: false,
                    failure: None,
                },
            ],
            diagnosis: Some(crate::grade::Diagnosis::WrongButTerminated),
            step_efficiency: Some(share),
            tool_correctness: Some(f64::NAN),
        };
        let mut line = ResultLine::new(text, number, Some(text.to_owned()), outcome, grade);
        line.judge = Some(json!({"verdict": "PASS", "reasoning": text}));
        line.cost = Cost {
            usd: Some(Decimal::new(54399, 6)),
            tokens: number,
            unpriced_calls: 1,
            agent_usd: Some(Decimal::new(-12, 1)),
            judge_usd: None,
            price_ids: vec![text.to_owned()],
            priced_at: Some("2026-11-30T00:00:00Z".into()),
            models: vec![ModelCost {
                role: CallRole::Judge,
                provider: Some(text.to_owned()),
                model: None,
                service_tier: Some("batch".into()),
                calls: 2,
                input_tokens: number,
                usd: None,
                price_id: Some(text.to_owned()),
                ..ModelCost::default()
            }],
        };
        line.timings = Timings {
            started_at: Some("2026-11-30T00:00:00Z".into()),
            duration_ms: Some(12),
        };
        line.task_digest = format!("sha256:{text}");
        line.seed = Some(number);
        line.process = Some(ProcessInfo {
            exit_code: Some(-1),
            signal: None,
            timed_out: true,
            stdout_bytes: number,
            stderr_tail: text.to_owned(),
        });
        line
    }

    #[test]
    fn an_empty_line_is_written_as_serde_writes_it() {
        let grade = Grade {
            passed: None,
            reasons: vec![],
            checks: vec![],
            diagnosis: None,
            step_efficiency: None,
            tool_correctness: None,
        };
        let line = ResultLine::new("t", 0, None, Outcome::default(), grade);
        assert_same_as_serde(&line);
    }

    #[test]
    fn every_field_is_written_as_serde_writes_it() {
        assert_same_as_serde(&full_line("refund \"A1\"\n\u{1}é", 7, 0.25));
    }

    #[test]
    fn every_enum_value_is_written_as_serde_writes_it() {
        use crate::grade::Diagnosis as D;
        let diagnoses = [
            D::Error,
            D::HitCap,
            D::Looping,
            D::GracefulGiveup,
            D::WrongButTerminated,
        ];
        let statuses = [
            Status::Final,
            Status::GaveUp,
            Status::HitCap,
            Status::Timeout,
            Status::Error,
        ];
        for (index, category) in GateCategory::ALL.into_iter().enumerate() {
            let mut line = full_line("x", 1, 1.0);
            line.diagnosis = Some(diagnoses[index % diagnoses.len()]);
            line.status = Some(statuses[index % statuses.len()]);
            line.checks[0].category = category;
            line.cost.models[0].role = [CallRole::Agent, CallRole::Judge][index % 2];
            assert_same_as_serde(&line);
        }
    }

    proptest! {
        #[test]
        fn any_text_and_numbers_are_written_as_serde_writes_them(
            text in any::<String>(),
            number in any::<u64>(),
            share in any::<f64>(),
        ) {
            let line = full_line(&text, number, share);
            let mut ours = Vec::new();
            write_line(&mut ours, &line);
            prop_assert_eq!(String::from_utf8(ours).unwrap(), serde_json::to_string(&line).unwrap());
        }
    }
}
