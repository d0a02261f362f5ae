//! The attack figures of a comparison (docs/metrics.md#comparing-two-versions), shared by every format: one row each
//! for utility on the base tasks, utility under attack and attack success, old, new and
//! Δ with its interval. Nothing when the files hold no attack variants, so that such a
//! comparison prints what it always did.

use super::{point_mark, signed};
use crate::render::numbers::{MISSING, interval, rate};
use proctor_core::compare::{AttackDelta, AttackDeltas, Comparison};

/// Each figure with its name in the text formats and its key in JSON.
pub(super) fn figures(a: &AttackDeltas) -> [(&'static str, &'static str, Option<&AttackDelta>); 3] {
    [
        ("utility (base tasks)", "utility", a.utility.as_ref()),
        (
            "utility under attack",
            "utility_under_attack",
            a.utility_under_attack.as_ref(),
        ),
        (
            "attack success",
            "attack_success",
            a.attack_success.as_ref(),
        ),
    ]
}

/// The rows of the attack table, header first; empty without attack variants.
pub fn attack_rows(c: &Comparison) -> Vec<Vec<String>> {
    let Some(attacks) = &c.attacks else {
        return Vec::new();
    };
    let mut rows = vec![
        ["under attack", "old", "new", "Δ (new − old)", "tasks"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for (name, _, figure) in figures(attacks) {
        rows.push(match figure {
            Some(f) => vec![
                name.to_owned(),
                rate(Some(f.old)),
                rate(Some(f.new)),
                format!(
                    "{}  95% CI {}{}",
                    signed(Some(f.delta.estimate)),
                    interval(f.delta.ci),
                    point_mark(&f.delta)
                ),
                f.delta.n.to_string(),
            ],
            None => vec![
                name.to_owned(),
                MISSING.to_owned(),
                MISSING.to_owned(),
                MISSING.to_owned(),
                "0".to_owned(),
            ],
        });
    }
    rows
}

/// Each attack number as the text formats print it, by its dotted path in the JSON
/// (`attacks.attack_success.delta.ci`); nothing without attack variants.
pub fn formatted_attacks(c: &Comparison) -> Vec<(String, Option<String>)> {
    let Some(attacks) = &c.attacks else {
        return Vec::new();
    };
    let mut shown = Vec::new();
    for (_, key, figure) in figures(attacks) {
        let Some(f) = figure else { continue };
        let path = |leaf: &str| format!("attacks.{key}.{leaf}");
        shown.push((path("old"), Some(rate(Some(f.old)))));
        shown.push((path("new"), Some(rate(Some(f.new)))));
        shown.push((path("delta.estimate"), Some(signed(Some(f.delta.estimate)))));
        shown.push((path("delta.ci"), f.delta.ci.map(|ci| interval(Some(ci)))));
    }
    shown
}
