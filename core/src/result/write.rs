//! Writing a [`ResultLine`] as compact JSON by hand: the same text as its `Serialize`
//! derive (a test holds the two together), at a fraction of the cost, because a large log
//! writes millions of these lines.

use super::json_text::{
    boolean, name, opt_boolean, opt_decimal, opt_name, opt_string, serde, string, strings, uint,
    value,
};
use super::{Cost, ModelCost, ResultLine, Timings, fields};
use crate::compact_json::CompactJson;
use crate::grade::{CheckResult, Diagnosis};
use crate::outcome::Step;
use crate::outcome::names::step;

/// A field's name and colon after a comma, `,"name":`, as bytes put together at compile time
/// from the name (a constant of [`fields`], or a literal for the members of an inner object).
macro_rules! field_text {
    ($name:expr) => {{
        const TEXT: &[u8] = &after_comma::<{ $name.len() + 4 }>($name);
        TEXT
    }};
}

/// Appends a field's name and colon, after a comma unless it is the object's first
/// (`field!(out, first fields::FORMAT)`). Each name is one copy of text made at compile time:
/// a result line has about fifty of them.
macro_rules! field {
    ($out:expr, first $name:expr) => {
        $out.extend_from_slice(&field_text!($name)[1..])
    };
    ($out:expr, $name:expr) => {
        $out.extend_from_slice(field_text!($name))
    };
}

/// `,"name":` for a plain field name (ASCII letters, digits and `_`, which need no escape),
/// `N` bytes long; evaluated at compile time, where a name that needs escaping, or a wrong
/// `N`, stops the build.
const fn after_comma<const N: usize>(name: &str) -> [u8; N] {
    let name = name.as_bytes();
    assert!(N == name.len() + 4, "the text is the name and four bytes");
    let mut text = [0; N];
    text[0] = b',';
    text[1] = b'"';
    let mut at = 0;
    while at < name.len() {
        let byte = name[at];
        assert!(
            byte.is_ascii_alphanumeric() || byte == b'_',
            "a field name needs no escape"
        );
        text[2 + at] = byte;
        at += 1;
    }
    text[N - 2] = b'"';
    text[N - 1] = b':';
    text
}

/// Appends `line` as one line of compact JSON, without a newline.
pub fn write_line(out: &mut Vec<u8>, line: &ResultLine) {
    // Every field is named, none left to `..`: a field added to the line does not build
    // until it is written here too.
    let ResultLine {
        format,
        task,
        variant,
        attempt,
        label,
        passed,
        reasons,
        diagnosis,
        checks,
        rules_not_applied,
        status,
        answer,
        tool_calls,
        tools_used,
        trajectory,
        trajectory_source,
        uncaptured_args,
        faults_fired,
        faults_missed,
        evidence,
        steps,
        error,
        usage,
        step_efficiency,
        tool_correctness,
        judge,
        cost,
        timings,
        task_digest,
        run_id,
        shard,
        seed,
        process,
    } = line;
    out.push(b'{');
    field!(out, first fields::FORMAT);
    string(out, format);
    field!(out, fields::TASK);
    string(out, task);
    if let Some(variant) = variant {
        field!(out, fields::VARIANT);
        string(out, variant);
    }
    field!(out, fields::ATTEMPT);
    uint(out, *attempt);
    field!(out, fields::LABEL);
    opt_string(out, label.as_deref());
    field!(out, fields::PASSED);
    opt_boolean(out, *passed);
    field!(out, fields::REASONS);
    strings(out, reasons);
    field!(out, fields::DIAGNOSIS);
    opt_name(out, diagnosis.map(Diagnosis::as_str));
    field!(out, fields::CHECKS);
    out.push(b'[');
    for (index, check) in checks.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        write_check(out, check);
    }
    out.push(b']');
    if !rules_not_applied.is_empty() {
        field!(out, fields::RULES_NOT_APPLIED);
        serde(out, rules_not_applied);
    }
    field!(out, fields::STATUS);
    opt_name(out, status.map(|s| s.as_str()));
    field!(out, fields::ANSWER);
    opt_string(out, answer.as_deref());
    field!(out, fields::TOOL_CALLS);
    uint(out, *tool_calls);
    field!(out, fields::TOOLS_USED);
    strings(out, tools_used);
    field!(out, fields::TRAJECTORY);
    out.push(b'[');
    for (index, step) in trajectory.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        write_step(out, step);
    }
    out.push(b']');
    field!(out, fields::TRAJECTORY_SOURCE);
    name(out, trajectory_source.as_str());
    if !uncaptured_args.is_empty() {
        field!(out, fields::UNCAPTURED_ARGS);
        serde(out, uncaptured_args);
    }
    if !faults_fired.is_empty() {
        field!(out, fields::FAULTS_FIRED);
        serde(out, faults_fired);
    }
    if !faults_missed.is_empty() {
        field!(out, fields::FAULTS_MISSED);
        serde(out, faults_missed);
    }
    if !evidence.is_empty() {
        field!(out, fields::EVIDENCE);
        serde(out, evidence);
    }
    field!(out, fields::STEPS);
    uint(out, *steps);
    field!(out, fields::ERROR);
    match error {
        Some(error) => serde(out, error),
        None => out.extend_from_slice(b"null"),
    }
    field!(out, fields::USAGE);
    CompactJson::write_list(out, usage);
    if let Some(share) = step_efficiency {
        field!(out, fields::STEP_EFFICIENCY);
        serde(out, share);
    }
    if let Some(share) = tool_correctness {
        field!(out, fields::TOOL_CORRECTNESS);
        serde(out, share);
    }
    if let Some(judge) = judge {
        field!(out, fields::JUDGE);
        value(out, judge);
    }
    field!(out, fields::COST);
    write_cost(out, cost);
    field!(out, fields::TIMINGS);
    if *timings == Timings::default() {
        out.extend_from_slice(b"{}");
    } else {
        serde(out, timings);
    }
    field!(out, fields::TASK_DIGEST);
    string(out, task_digest);
    if let Some(run_id) = run_id {
        field!(out, fields::RUN_ID);
        string(out, run_id);
    }
    if let Some(shard) = shard {
        field!(out, fields::SHARD);
        string(out, shard);
    }
    if let Some(seed) = seed {
        field!(out, fields::SEED);
        uint(out, *seed);
    }
    if let Some(process) = process {
        field!(out, fields::PROCESS);
        serde(out, process);
    }
    out.push(b'}');
}

// The inner objects are taken apart the same way, every member named: a member added to
// one of them does not build until it is written here.

fn write_check(out: &mut Vec<u8>, check: &CheckResult) {
    let CheckResult {
        category,
        check,
        passed,
        gating,
        failure,
        detail,
        not_checked,
    } = check;
    out.push(b'{');
    field!(out, first "category");
    name(out, category.as_str());
    field!(out, "check");
    out.extend_from_slice(check.json());
    field!(out, "passed");
    boolean(out, *passed);
    field!(out, "gating");
    boolean(out, *gating);
    if let Some(failure) = failure {
        field!(out, "failure");
        string(out, failure);
    }
    if let Some(detail) = detail {
        field!(out, "detail");
        string(out, detail);
    }
    if *not_checked {
        field!(out, "not_checked");
        boolean(out, true);
    }
    out.push(b'}');
}

fn write_step(out: &mut Vec<u8>, step: &Step) {
    let Step {
        tool,
        args,
        error,
        result,
        faults,
    } = step;
    out.push(b'{');
    field!(out, first step::TOOL);
    string(out, tool);
    field!(out, step::ARGS);
    out.extend_from_slice(args.as_str().as_bytes());
    if let Some(error) = error {
        field!(out, step::ERROR);
        value(out, error);
    }
    if let Some(result) = result {
        field!(out, step::RESULT);
        value(out, result);
    }
    if let Some(faults) = faults {
        field!(out, step::FAULTS);
        serde(out, faults);
    }
    out.push(b'}');
}

fn write_cost(out: &mut Vec<u8>, cost: &Cost) {
    let Cost {
        usd,
        tokens,
        unpriced_calls,
        agent_usd,
        judge_usd,
        priced_at,
        models,
    } = cost;
    out.push(b'{');
    field!(out, first "usd");
    opt_decimal(out, *usd);
    field!(out, "tokens");
    uint(out, *tokens);
    field!(out, "unpriced_calls");
    uint(out, *unpriced_calls);
    if agent_usd.is_some() {
        field!(out, "agent_usd");
        opt_decimal(out, *agent_usd);
    }
    if judge_usd.is_some() {
        field!(out, "judge_usd");
        opt_decimal(out, *judge_usd);
    }
    if let Some(at) = priced_at {
        field!(out, "priced_at");
        string(out, at);
    }
    if !models.is_empty() {
        field!(out, "models");
        out.push(b'[');
        for (index, model) in models.iter().enumerate() {
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
    let ModelCost {
        role,
        provider,
        model,
        service_tier,
        calls,
        input_tokens,
        cache_read_tokens,
        cache_write_5m_tokens,
        cache_write_1h_tokens,
        output_tokens,
        reasoning_tokens,
        usd,
        price_id,
    } = model;
    out.push(b'{');
    field!(out, first "role");
    name(out, role.as_str());
    field!(out, "provider");
    opt_string(out, provider.as_deref());
    field!(out, "model");
    opt_string(out, model.as_deref());
    if let Some(tier) = service_tier {
        field!(out, "service_tier");
        string(out, tier);
    }
    field!(out, "calls");
    uint(out, *calls);
    // Buckets a call did not use are left out; they read back as 0.
    for (field, count) in [
        (field_text!("input_tokens"), *input_tokens),
        (field_text!("cache_read_tokens"), *cache_read_tokens),
        (field_text!("cache_write_5m_tokens"), *cache_write_5m_tokens),
        (field_text!("cache_write_1h_tokens"), *cache_write_1h_tokens),
        (field_text!("output_tokens"), *output_tokens),
        (field_text!("reasoning_tokens"), *reasoning_tokens),
    ] {
        if count != 0 {
            out.extend_from_slice(field);
            uint(out, count);
        }
    }
    field!(out, "usd");
    opt_decimal(out, *usd);
    if let Some(id) = price_id {
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
        line.run_id = Some(text.to_owned());
        line.shard = Some("2/4".to_owned());
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
    const FULL_LINE: &str = r#"{"format":"proctor.result/1","task":"refund \"A1\"\n\u0001é","variant":"refund \"A1\"\n\u0001é@","attempt":7,"label":"refund \"A1\"\n\u0001é","passed":false,"reasons":["rule: refund \"A1\"\n\u0001é","not final"],"diagnosis":"wrong_but_terminated","checks":[{"category":"process","check":"refund \"A1\"\n\u0001é","passed":false,"gating":true,"failure":"rule: refund \"A1\"\n\u0001é","detail":"refund \"A1\"\n\u0001é"},{"category":"end_state","check":"file exists","passed":true,"gating":false}],"status":"gave_up","answer":"refund \"A1\"\n\u0001é answer","tool_calls":7,"tools_used":["refund \"A1\"\n\u0001é","refund"],"trajectory":[{"tool":"refund \"A1\"\n\u0001é","args":{"order_id":"refund \"A1\"\n\u0001é","n":7,"f":-1.5,"list":[null,true]},"error":{"type":"KeyError"},"result":"ok","faults":["refund \"A1\"\n\u0001é","inject"]},{"tool":"lookup","args":["refund \"A1\"\n\u0001é",-3]}],"trajectory_source":"trace","uncaptured_args":[7],"faults_fired":[{"step":7,"tool":"refund \"A1\"\n\u0001é","kind":"timeout"}],"faults_missed":[{"tool":"refund \"A1\"\n\u0001é","kind":"error","call":7}],"evidence":[{"source":"tools","trajectory":[{"tool":"lookup","args":["refund \"A1\"\n\u0001é",-3]}],"tools_used":["refund \"A1\"\n\u0001é"],"uncaptured_args":[7]}],"steps":7,"error":{"type":"refund \"A1\"\n\u0001é","message":"boom"},"usage":[{"provider":"anthropic","input_tokens":7}],"step_efficiency":0.25,"tool_correctness":null,"judge":{"verdict":"PASS","reasoning":"refund \"A1\"\n\u0001é"},"cost":{"usd":"0.054399","tokens":7,"unpriced_calls":1,"agent_usd":"-1.2","priced_at":"2026-11-30T00:00:00Z","models":[{"role":"judge","provider":"refund \"A1\"\n\u0001é","model":null,"service_tier":"batch","calls":2,"input_tokens":7,"usd":null,"price_id":"refund \"A1\"\n\u0001é"}]},"timings":{"started_at":"2026-11-30T00:00:00Z","duration_ms":12,"tool_calls":[{"step":7,"started_at":"refund \"A1\"\n\u0001é","duration_us":7}]},"task_digest":"sha256:refund \"A1\"\n\u0001é","run_id":"refund \"A1\"\n\u0001é","shard":"2/4","seed":7,"process":{"exit_code":-1,"timed_out":true,"timeout_s":2.5,"stdout_bytes":7,"stderr_tail":"refund \"A1\"\n\u0001é"}}"#;

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
