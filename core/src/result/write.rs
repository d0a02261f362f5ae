//! Writing a [`ResultLine`] as compact JSON by hand: the same text as its `Serialize`
//! derive (a test holds the two together), at a fraction of the cost, because a large log
//! writes millions of these lines.

use super::json_text::{
    boolean, name, opt_boolean, opt_decimal, opt_name, opt_string, serde, string, strings, uint,
    value,
};
use super::{Cost, ModelCost, ResultLine, Timings};
use crate::compact_json::CompactJson;
use crate::grade::{CheckResult, Diagnosis};
use crate::outcome::Step;

/// A field's name and colon after a comma, `,"name":`, as bytes put together at compile time.
macro_rules! field_text {
    ($name:literal) => {
        concat!(",\"", $name, "\":").as_bytes()
    };
}

/// Appends a field's name and colon, after a comma unless it is the object's first
/// (`field!(out, first "format")`). Each name is one copy of text made at compile time: a
/// result line has about fifty of them.
macro_rules! field {
    ($out:expr, first $name:literal) => {
        $out.extend_from_slice(&field_text!($name)[1..])
    };
    ($out:expr, $name:literal) => {
        $out.extend_from_slice(field_text!($name))
    };
}

/// Appends `line` as one line of compact JSON, without a newline.
pub fn write_line(out: &mut Vec<u8>, line: &ResultLine) {
    out.push(b'{');
    field!(out, first "format");
    string(out, &line.format);
    field!(out, "task");
    string(out, &line.task);
    if let Some(variant) = &line.variant {
        field!(out, "variant");
        string(out, variant);
    }
    field!(out, "attempt");
    uint(out, line.attempt);
    field!(out, "label");
    opt_string(out, line.label.as_deref());
    field!(out, "passed");
    opt_boolean(out, line.passed);
    field!(out, "reasons");
    strings(out, &line.reasons);
    field!(out, "diagnosis");
    opt_name(out, line.diagnosis.map(Diagnosis::as_str));
    field!(out, "checks");
    out.push(b'[');
    for (index, check) in line.checks.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        write_check(out, check);
    }
    out.push(b']');
    field!(out, "status");
    opt_name(out, line.status.map(|s| s.as_str()));
    field!(out, "answer");
    opt_string(out, line.answer.as_deref());
    field!(out, "tool_calls");
    uint(out, line.tool_calls);
    field!(out, "tools_used");
    strings(out, &line.tools_used);
    field!(out, "trajectory");
    out.push(b'[');
    for (index, step) in line.trajectory.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        write_step(out, step);
    }
    out.push(b']');
    field!(out, "trajectory_source");
    name(out, line.trajectory_source.as_str());
    if !line.uncaptured_args.is_empty() {
        field!(out, "uncaptured_args");
        serde(out, &line.uncaptured_args);
    }
    if !line.faults_fired.is_empty() {
        field!(out, "faults_fired");
        serde(out, &line.faults_fired);
    }
    if !line.faults_missed.is_empty() {
        field!(out, "faults_missed");
        serde(out, &line.faults_missed);
    }
    if !line.evidence.is_empty() {
        field!(out, "evidence");
        serde(out, &line.evidence);
    }
    field!(out, "steps");
    uint(out, line.steps);
    field!(out, "error");
    match &line.error {
        Some(error) => serde(out, error),
        None => out.extend_from_slice(b"null"),
    }
    field!(out, "usage");
    CompactJson::write_list(out, &line.usage);
    if let Some(share) = line.step_efficiency {
        field!(out, "step_efficiency");
        serde(out, &share);
    }
    if let Some(share) = line.tool_correctness {
        field!(out, "tool_correctness");
        serde(out, &share);
    }
    if let Some(judge) = &line.judge {
        field!(out, "judge");
        value(out, judge);
    }
    field!(out, "cost");
    write_cost(out, &line.cost);
    field!(out, "timings");
    if line.timings == Timings::default() {
        out.extend_from_slice(b"{}");
    } else {
        serde(out, &line.timings);
    }
    field!(out, "task_digest");
    string(out, &line.task_digest);
    if let Some(seed) = line.seed {
        field!(out, "seed");
        uint(out, seed);
    }
    if let Some(process) = &line.process {
        field!(out, "process");
        serde(out, process);
    }
    out.push(b'}');
}

fn write_check(out: &mut Vec<u8>, check: &CheckResult) {
    out.push(b'{');
    field!(out, first "category");
    name(out, check.category.as_str());
    field!(out, "check");
    out.extend_from_slice(check.check.json());
    field!(out, "passed");
    boolean(out, check.passed);
    field!(out, "gating");
    boolean(out, check.gating);
    if let Some(failure) = &check.failure {
        field!(out, "failure");
        string(out, failure);
    }
    if let Some(detail) = &check.detail {
        field!(out, "detail");
        string(out, detail);
    }
    if check.not_checked {
        field!(out, "not_checked");
        boolean(out, true);
    }
    out.push(b'}');
}

fn write_step(out: &mut Vec<u8>, step: &Step) {
    out.push(b'{');
    field!(out, first "tool");
    string(out, &step.tool);
    field!(out, "args");
    out.extend_from_slice(step.args.as_str().as_bytes());
    if let Some(error) = &step.error {
        field!(out, "error");
        value(out, error);
    }
    if let Some(result) = &step.result {
        field!(out, "result");
        value(out, result);
    }
    if let Some(faults) = &step.faults {
        field!(out, "faults");
        serde(out, faults);
    }
    out.push(b'}');
}

fn write_cost(out: &mut Vec<u8>, cost: &Cost) {
    out.push(b'{');
    field!(out, first "usd");
    opt_decimal(out, cost.usd);
    field!(out, "tokens");
    uint(out, cost.tokens);
    field!(out, "unpriced_calls");
    uint(out, cost.unpriced_calls);
    if cost.agent_usd.is_some() {
        field!(out, "agent_usd");
        opt_decimal(out, cost.agent_usd);
    }
    if cost.judge_usd.is_some() {
        field!(out, "judge_usd");
        opt_decimal(out, cost.judge_usd);
    }
    if let Some(at) = &cost.priced_at {
        field!(out, "priced_at");
        string(out, at);
    }
    if !cost.models.is_empty() {
        field!(out, "models");
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
    field!(out, first "role");
    name(out, model.role.as_str());
    field!(out, "provider");
    opt_string(out, model.provider.as_deref());
    field!(out, "model");
    opt_string(out, model.model.as_deref());
    if let Some(tier) = &model.service_tier {
        field!(out, "service_tier");
        string(out, tier);
    }
    field!(out, "calls");
    uint(out, model.calls);
    // Buckets a call did not use are left out; they read back as 0.
    for (field, count) in [
        (field_text!("input_tokens"), model.input_tokens),
        (field_text!("cache_read_tokens"), model.cache_read_tokens),
        (
            field_text!("cache_write_5m_tokens"),
            model.cache_write_5m_tokens,
        ),
        (
            field_text!("cache_write_1h_tokens"),
            model.cache_write_1h_tokens,
        ),
        (field_text!("output_tokens"), model.output_tokens),
        (field_text!("reasoning_tokens"), model.reasoning_tokens),
    ] {
        if count != 0 {
            out.extend_from_slice(field);
            uint(out, count);
        }
    }
    field!(out, "usd");
    opt_decimal(out, model.usd);
    if let Some(id) = &model.price_id {
        field!(out, "price_id");
        string(out, id);
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::{CheckName, Grade};
    use crate::outcome::{AgentError, Outcome, Status, TrajectorySource};
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
            tools_used: Some(vec![text.into(), "refund".into()]),
            trajectory: vec![
                Step {
                    tool: text.into(),
                    args: json!({"order_id": text, "n": number, "f": -1.5, "list": [null, true]})
                        .into(),
                    error: Some(Box::new(json!({"type": "KeyError"}))),
                    result: Some(Box::new(json!("ok"))),
                    faults: Some(Box::new(vec![text.to_owned(), "inject".to_owned()])),
                },
                Step {
                    tool: "lookup".into(),
                    args: json!([text, -3]).into(),
                    error: None,
                    result: None,
                    faults: None,
                },
            ],
            usage: vec![json!({"provider": "anthropic", "input_tokens": number}).into()],
            steps: number,
            error: Some(AgentError {
                kind: text.to_owned(),
                message: "boom".into(),
            }),
            trajectory_source: TrajectorySource::Trace,
            uncaptured_args: vec![number],
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
                    detail: Some(text.to_owned()),
                    not_checked: false,
                },
                CheckResult {
                    category: GateCategory::EndState,
                    check: CheckName::from("file exists"),
                    passed: true,
                    gating: false,
                    failure: None,
                    detail: None,
                    not_checked: false,
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
            priced_at: Some("2026-11-30T00:00:00Z".into()),
            models: vec![ModelCost {
                role: CallRole::Judge,
                provider: Some(text.into()),
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
            tool_calls: vec![crate::result::CallTiming {
                step: number,
                started_at: text.to_owned(),
                duration_us: number,
            }],
        };
        line.task_digest = format!("sha256:{text}");
        line.seed = Some(number);
        line.variant = Some(format!("{text}@"));
        line.faults_fired = vec![crate::faults::FaultFired {
            step: number as u32,
            tool: text.to_owned(),
            kind: "timeout".to_owned(),
        }];
        line.faults_missed = vec![crate::faults::FaultMissed {
            tool: text.to_owned(),
            kind: "error".to_owned(),
            call: number as u32,
        }];
        line.evidence = vec![crate::grade::Account {
            source: crate::outcome::TrajectorySource::Tools,
            trajectory: vec![line.trajectory[1].clone()],
            tools_used: Some(vec![text.into()]),
            uncaptured_args: vec![number],
        }];
        line.process = Some(ProcessInfo {
            exit_code: Some(-1),
            signal: None,
            timed_out: true,
            timeout_s: Some(2.5),
            stdout_bytes: number,
            stderr_tail: text.to_owned(),
        });
        line
    }

    /// Every field of the result line (docs/result-format.md), in its order, as this version writes it: the
    /// serde attributes and this writer may only change together with the format.
    const FULL_LINE: &str = r#"{"format":"proctor.result/1","task":"refund \"A1\"\n\u0001é","variant":"refund \"A1\"\n\u0001é@","attempt":7,"label":"refund \"A1\"\n\u0001é","passed":false,"reasons":["rule: refund \"A1\"\n\u0001é","not final"],"diagnosis":"wrong_but_terminated","checks":[{"category":"process","check":"refund \"A1\"\n\u0001é","passed":false,"gating":true,"failure":"rule: refund \"A1\"\n\u0001é","detail":"refund \"A1\"\n\u0001é"},{"category":"end_state","check":"file exists","passed":true,"gating":false}],"status":"gave_up","answer":"refund \"A1\"\n\u0001é answer","tool_calls":7,"tools_used":["refund \"A1\"\n\u0001é","refund"],"trajectory":[{"tool":"refund \"A1\"\n\u0001é","args":{"order_id":"refund \"A1\"\n\u0001é","n":7,"f":-1.5,"list":[null,true]},"error":{"type":"KeyError"},"result":"ok","faults":["refund \"A1\"\n\u0001é","inject"]},{"tool":"lookup","args":["refund \"A1\"\n\u0001é",-3]}],"trajectory_source":"trace","uncaptured_args":[7],"faults_fired":[{"step":7,"tool":"refund \"A1\"\n\u0001é","kind":"timeout"}],"faults_missed":[{"tool":"refund \"A1\"\n\u0001é","kind":"error","call":7}],"evidence":[{"source":"tools","trajectory":[{"tool":"lookup","args":["refund \"A1\"\n\u0001é",-3]}],"tools_used":["refund \"A1\"\n\u0001é"],"uncaptured_args":[7]}],"steps":7,"error":{"type":"refund \"A1\"\n\u0001é","message":"boom"},"usage":[{"provider":"anthropic","input_tokens":7}],"step_efficiency":0.25,"tool_correctness":null,"judge":{"verdict":"PASS","reasoning":"refund \"A1\"\n\u0001é"},"cost":{"usd":"0.054399","tokens":7,"unpriced_calls":1,"agent_usd":"-1.2","priced_at":"2026-11-30T00:00:00Z","models":[{"role":"judge","provider":"refund \"A1\"\n\u0001é","model":null,"service_tier":"batch","calls":2,"input_tokens":7,"usd":null,"price_id":"refund \"A1\"\n\u0001é"}]},"timings":{"started_at":"2026-11-30T00:00:00Z","duration_ms":12,"tool_calls":[{"step":7,"started_at":"refund \"A1\"\n\u0001é","duration_us":7}]},"task_digest":"sha256:refund \"A1\"\n\u0001é","seed":7,"process":{"exit_code":-1,"timed_out":true,"timeout_s":2.5,"stdout_bytes":7,"stderr_tail":"refund \"A1\"\n\u0001é"}}"#;

    #[test]
    fn a_full_line_is_written_byte_for_byte_as_the_format_says() {
        let line = full_line("refund \"A1\"\n\u{1}é", 7, 0.25);
        let mut ours = Vec::new();
        write_line(&mut ours, &line);
        assert_eq!(String::from_utf8(ours).unwrap(), FULL_LINE);
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
            absent in any::<u16>(),
        ) {
            // Each bit of `absent` leaves out one field that is only written when present.
            let mut line = full_line(&text, number, share);
            let gone = |bit: u32| absent & (1 << bit) != 0;
            let model = &mut line.cost.models[0];
            for (bit, count) in [
                &mut model.input_tokens,
                &mut model.cache_read_tokens,
                &mut model.cache_write_5m_tokens,
                &mut model.cache_write_1h_tokens,
                &mut model.output_tokens,
                &mut model.reasoning_tokens,
            ]
            .into_iter()
            .enumerate()
            {
                *count = if gone(bit as u32) { 0 } else { number };
            }
            if gone(6) {
                line.cost.agent_usd = None;
            }
            if !gone(7) {
                line.cost.judge_usd = Some(Decimal::new(3, 0));
            }
            if gone(8) {
                line.step_efficiency = None;
            }
            if !gone(9) {
                line.tool_correctness = Some(share / 2.0);
            }
            if gone(10) {
                line.variant = None;
            }
            if gone(11) {
                line.faults_fired.clear();
            }
            if gone(13) {
                line.evidence.clear();
            }
            if gone(12) {
                line.faults_missed.clear();
                line.trajectory.iter_mut().for_each(|step| step.faults = None);
            }
            let mut ours = Vec::new();
            write_line(&mut ours, &line);
            prop_assert_eq!(String::from_utf8(ours).unwrap(), serde_json::to_string(&line).unwrap());
        }
    }
}
