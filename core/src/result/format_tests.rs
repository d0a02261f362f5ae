//! The bytes of a result line, held fixed: DESIGN's `proctor.result/1` lines are read by
//! other programs, so a change to the serde attributes that moves a field, renames it or
//! writes a value differently must fail here first.

use super::{Cost, ModelCost, ResultLine};
use crate::grade::{CheckName, CheckResult, Grade};
use crate::outcome::{AgentError, Outcome, Status, Step, TrajectorySource};
use crate::result::{CallRole, ProcessInfo, Timings};
use crate::task::GateCategory;
use proptest::prelude::*;
use rust_decimal::Decimal;
use serde_json::json;

/// The line's text is what serde_json writes for the same line as a [`serde_json::Value`]:
/// the values kept as their JSON text (a step's arguments, usage objects) are written as
/// their parsed values would be, and the line reads back as it was.
fn assert_same_as_value(line: &ResultLine) {
    let text = line.to_json();
    let value = serde_json::to_value(line).unwrap();
    assert_eq!(text, serde_json::to_string(&value).unwrap());
    let mut appended = b"x".to_vec();
    line.write_json(&mut appended);
    assert_eq!(appended[1..], *text.as_bytes());
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
            },
            Step {
                tool: "lookup".into(),
                args: json!([text, -3]).into(),
                error: None,
                result: None,
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
    line.process = Some(ProcessInfo {
        exit_code: Some(-1),
        signal: None,
        timed_out: true,
        stdout_bytes: number,
        stderr_tail: text.to_owned(),
    });
    line
}

/// Every field of DESIGN's result line, in its order, as this version writes it.
const FULL_LINE: &str = r#"{"format":"proctor.result/1","task":"refund \"A1\"\n\u0001é","variant":"refund \"A1\"\n\u0001é@","attempt":7,"label":"refund \"A1\"\n\u0001é","passed":false,"reasons":["rule: refund \"A1\"\n\u0001é","not final"],"diagnosis":"wrong_but_terminated","checks":[{"category":"process","check":"refund \"A1\"\n\u0001é","passed":false,"gating":true,"failure":"rule: refund \"A1\"\n\u0001é","detail":"refund \"A1\"\n\u0001é"},{"category":"end_state","check":"file exists","passed":true,"gating":false}],"status":"gave_up","answer":"refund \"A1\"\n\u0001é answer","tool_calls":7,"tools_used":["refund \"A1\"\n\u0001é","refund"],"trajectory":[{"tool":"refund \"A1\"\n\u0001é","args":{"order_id":"refund \"A1\"\n\u0001é","n":7,"f":-1.5,"list":[null,true]},"error":{"type":"KeyError"},"result":"ok"},{"tool":"lookup","args":["refund \"A1\"\n\u0001é",-3]}],"trajectory_source":"trace","uncaptured_args":[7],"faults_fired":[{"step":7,"tool":"refund \"A1\"\n\u0001é","kind":"timeout"}],"steps":7,"error":{"type":"refund \"A1\"\n\u0001é","message":"boom"},"usage":[{"provider":"anthropic","input_tokens":7}],"step_efficiency":0.25,"tool_correctness":null,"judge":{"verdict":"PASS","reasoning":"refund \"A1\"\n\u0001é"},"cost":{"usd":"0.054399","tokens":7,"unpriced_calls":1,"agent_usd":"-1.2","priced_at":"2026-11-30T00:00:00Z","models":[{"role":"judge","provider":"refund \"A1\"\n\u0001é","model":null,"service_tier":"batch","calls":2,"input_tokens":7,"usd":null,"price_id":"refund \"A1\"\n\u0001é"}]},"timings":{"started_at":"2026-11-30T00:00:00Z","duration_ms":12,"tool_calls":[{"step":7,"started_at":"refund \"A1\"\n\u0001é","duration_us":7}]},"task_digest":"sha256:refund \"A1\"\n\u0001é","seed":7,"process":{"exit_code":-1,"timed_out":true,"stdout_bytes":7,"stderr_tail":"refund \"A1\"\n\u0001é"}}"#;

/// A line with nothing but the fields that are always written.
const EMPTY_LINE: &str = r#"{"format":"proctor.result/1","task":"t","attempt":0,"label":null,"passed":null,"reasons":[],"diagnosis":null,"checks":[],"status":null,"answer":null,"tool_calls":0,"tools_used":[],"trajectory":[],"trajectory_source":"reported","steps":0,"error":null,"usage":[],"cost":{"usd":null,"tokens":0,"unpriced_calls":0},"timings":{},"task_digest":""}"#;

#[test]
fn a_full_line_is_written_byte_for_byte_as_the_format_says() {
    let line = full_line("refund \"A1\"\n\u{1}é", 7, 0.25);
    assert_eq!(line.to_json(), FULL_LINE);
}

#[test]
fn an_empty_line_is_written_byte_for_byte_as_the_format_says() {
    let grade = Grade {
        passed: None,
        reasons: vec![],
        checks: vec![],
        diagnosis: None,
        step_efficiency: None,
        tool_correctness: None,
    };
    let line = ResultLine::new("t", 0, None, Outcome::default(), grade);
    assert_eq!(line.to_json(), EMPTY_LINE);
}

#[test]
fn an_empty_line_is_written_as_its_value() {
    let grade = Grade {
        passed: None,
        reasons: vec![],
        checks: vec![],
        diagnosis: None,
        step_efficiency: None,
        tool_correctness: None,
    };
    let line = ResultLine::new("t", 0, None, Outcome::default(), grade);
    assert_same_as_value(&line);
}

#[test]
fn every_field_is_written_as_its_value() {
    assert_same_as_value(&full_line("refund \"A1\"\n\u{1}é", 7, 0.25));
}

#[test]
fn every_enum_value_is_written_as_its_value() {
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
        assert_same_as_value(&line);
    }
}

proptest! {
    #[test]
    fn any_text_and_numbers_are_written_as_their_values(
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
        let value = serde_json::to_value(&line).unwrap();
        prop_assert_eq!(line.to_json(), serde_json::to_string(&value).unwrap());
    }
}
