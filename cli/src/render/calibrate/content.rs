//! What a calibration says, decided once from a [`Calibration`]: the sections in order, with
//! their titles, sentences, rows and items. [`super::table`] and [`super::markdown`] only lay
//! it out, so both formats say the same words.

use super::super::numbers::{MISSING, interval, rate};
use proctor_core::calibrate::{Calibration, Correction, Direction, Disagreement, LabelSplit};

/// The whole output: the command and its inputs, then the sections.
pub struct Content {
    pub command: &'static str,
    pub inputs: Vec<String>,
    pub sections: Vec<Section>,
}

/// A part set apart from the next by a blank line, under its own title when it has one.
pub struct Section {
    pub title: Option<String>,
    pub blocks: Vec<Block>,
}

pub enum Block {
    /// Sentences, one a line in a table and run together in Markdown.
    Lines(Vec<String>),
    /// TPR and TNR, before anything else: accuracy alone can hide a judge that passes
    /// almost everything.
    Rates(Vec<Rate>),
    /// The confusion matrix: the first row and the first column are the heads.
    Matrix(Vec<Vec<String>>),
    /// Named values.
    Rows(Vec<(String, String)>),
    Warning(String),
    /// Items named one by one: disagreements, attempts without a verdict.
    Items(Vec<Item>),
}

pub struct Rate {
    pub name: &'static str,
    pub value: String,
    pub interval: String,
    pub says: String,
}

pub struct Item {
    /// "false pass" or "false fail", when the item disagrees.
    pub kind: Option<&'static str>,
    pub name: String,
    /// "human FAIL, judge PASS", when the item disagrees.
    pub verdicts: Option<String>,
    /// The judge's reasoning, or why there is no verdict, on one line.
    pub text: String,
}

impl Content {
    pub fn of(c: &Calibration) -> Content {
        let mut sections = vec![
            Section::untitled(vec![Block::Lines(intro(c))]),
            Section::untitled(vec![Block::Rates(rates(c))]),
            Section::untitled(vec![Block::Matrix(matrix(c))]),
            Section::untitled(vec![Block::Rows(metrics(c))]),
        ];
        sections.extend(raters(c));
        if let Some(k) = &c.correction {
            sections.push(correction(k, c.label_split.as_ref()));
        }
        if !c.warnings.is_empty() {
            let warnings = c.warnings.iter().map(|w| Block::Warning(w.clone()));
            sections.push(Section::untitled(warnings.collect()));
        }
        sections.extend(disagreements(&c.disagreements));
        if !c.undecided.is_empty() {
            let items = c.undecided.iter().map(|u| Item {
                kind: None,
                name: item_name(&u.item, u.attempt),
                verdicts: None,
                text: one_line(&u.why),
            });
            sections.push(Section {
                title: Some("no judge verdict".to_owned()),
                blocks: vec![Block::Items(items.collect())],
            });
        }
        Content {
            command: "proctor calibrate",
            inputs: c.inputs.clone(),
            sections,
        }
    }
}

impl Section {
    fn untitled(blocks: Vec<Block>) -> Section {
        Section {
            title: None,
            blocks,
        }
    }
}

fn intro(c: &Calibration) -> Vec<String> {
    let mut lines = Vec::new();
    if !c.judges.is_empty() {
        lines.push(format!("judge: {}", c.judges.join(", ")));
    }
    lines.push(format!(
        "{} labelled, {} with a human and a judge verdict",
        count(c.items, "item", "items"),
        c.n
    ));
    lines
}

fn rates(c: &Calibration) -> Vec<Rate> {
    let (m, r) = (&c.confusion_matrix, &c.rates);
    vec![
        Rate {
            name: "TPR",
            value: rate(r.tpr),
            interval: format!("95% CI {}", interval(r.tpr_ci)),
            says: format!(
                "the judge passes {} of {} items humans passed",
                m.tp,
                m.human_pass()
            ),
        },
        Rate {
            name: "TNR",
            value: rate(r.tnr),
            interval: format!("95% CI {}", interval(r.tnr_ci)),
            says: format!(
                "the judge fails {} of {} items humans failed",
                m.tn,
                m.human_fail()
            ),
        },
    ]
}

fn matrix(c: &Calibration) -> Vec<Vec<String>> {
    let m = &c.confusion_matrix;
    vec![
        vec![String::new(), "judge PASS".into(), "judge FAIL".into()],
        vec![
            "human PASS".into(),
            format!("{} (TP)", m.tp),
            format!("{} (FN)", m.fn_),
        ],
        vec![
            "human FAIL".into(),
            format!("{} (FP)", m.fp),
            format!("{} (TN)", m.tn),
        ],
    ]
}

fn metrics(c: &Calibration) -> Vec<(String, String)> {
    let r = &c.rates;
    let precision = format!(
        "PASS {} / {}, FAIL {} / {}",
        rate(r.precision_pass),
        rate(r.f1_pass),
        rate(r.precision_fail),
        rate(r.f1_fail)
    );
    let share = format!(
        "human {}, judge {}",
        rate(c.human_pass_share),
        rate(c.judge_pass_share)
    );
    [
        ("accuracy", rate(r.accuracy)),
        ("balanced accuracy", rate(r.balanced_accuracy)),
        ("precision / F1", precision),
        ("Cohen's κ", rate(c.cohen_kappa)),
        ("PABAK", rate(c.pabak)),
        ("Gwet's AC1", rate(c.gwet_ac1)),
        ("Youden's J", rate(r.youden_j)),
        ("pass share", share),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect()
}

fn raters(c: &Calibration) -> Option<Section> {
    let raters = c.raters.as_ref()?;
    let lines = vec![format!(
        "{} raters, {} labelled by two or more",
        raters.raters,
        count(raters.items, "item", "items")
    )];
    let rows = vec![
        (
            "Krippendorff's α".to_owned(),
            format!(
                "humans {}, with the judge {}",
                rate(raters.krippendorff_alpha_humans),
                rate(raters.krippendorff_alpha_with_judge)
            ),
        ),
        (
            "agreement".to_owned(),
            format!(
                "human-human {}, judge-human {}, judge-majority {}",
                rate(raters.human_agreement),
                rate(raters.judge_human_agreement),
                rate(raters.judge_majority_agreement)
            ),
        ),
    ];
    Some(Section::untitled(vec![
        Block::Lines(lines),
        Block::Rows(rows),
    ]))
}

fn correction(k: &Correction, split: Option<&LabelSplit>) -> Section {
    let corrected = match k.corrected_pass_rate {
        Some(v) => format!(
            "{v:.4}  95% CI {}  (Rogan–Gladen, Lee et al. interval)",
            interval(k.corrected_pass_rate_ci)
        ),
        None => format!("{MISSING}  (see the warning)"),
    };
    let mut rows = vec![
        (
            "raw".to_owned(),
            format!(
                "{}  ({} of {} passed by the judge)",
                rate(k.raw_pass_rate),
                k.judge_passed,
                k.runs
            ),
        ),
        ("corrected".to_owned(), corrected),
    ];
    if let Some(s) = split {
        rows.push(("next labels".to_owned(), next_labels(s)));
    }
    let mut blocks = vec![Block::Rows(rows)];
    blocks.extend(k.warning.iter().map(|w| Block::Warning(w.clone())));
    Section {
        title: Some(format!("corrected pass rate over {} judged runs", k.runs)),
        blocks,
    }
}

/// Which labels to add next for the narrowest interval.
fn next_labels(s: &LabelSplit) -> String {
    match (s.budget, s.pass_labels, s.fail_labels) {
        (Some(m), Some(p), Some(f)) => format!(
            "of the next {m}, label {p} human-PASS and {f} human-FAIL items; the interval's half-width goes from {:.4} to {}",
            s.half_width,
            rate(s.projected_half_width)
        ),
        _ => format!(
            "{:.0}% of all labels should be human-PASS items (pass --label-budget M for counts); the interval's half-width is now {:.4}",
            s.optimal_pass_share * 100.0,
            s.half_width
        ),
    }
}

fn disagreements(all: &[Disagreement]) -> Option<Section> {
    if all.is_empty() {
        return None;
    }
    let items = all.iter().map(|d| Item {
        kind: Some(match d.direction {
            Direction::FalsePass => "false pass",
            Direction::FalseFail => "false fail",
        }),
        name: item_name(&d.item, d.attempt),
        verdicts: Some(format!("{}, judge {}", humans(d), d.judge)),
        text: one_line(&d.reasoning),
    });
    Some(Section {
        title: Some(format!(
            "{} (false passes first, clearest first)",
            count(all.len() as u64, "disagreement", "disagreements")
        )),
        blocks: vec![Block::Items(items.collect())],
    })
}

/// `task attempt 3`, or the calibration set's id.
fn item_name(item: &str, attempt: Option<u64>) -> String {
    match attempt {
        Some(a) => format!("{item} attempt {a}"),
        None => item.to_owned(),
    }
}

/// "2 of 3 humans" when there were several, else "human".
fn humans(d: &Disagreement) -> String {
    if d.human_labels > 1 {
        format!("{} of {} humans {}", d.human_votes, d.human_labels, d.human)
    } else {
        format!("human {}", d.human)
    }
}

/// The reasoning on one line, whitespace collapsed; `MISSING` when none was recorded.
fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.is_empty() {
        MISSING.to_owned()
    } else {
        joined
    }
}

fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proctor_core::calibrate::{
        CalibrationOptions, HumanLabel, JudgeVerdict, Label, LabelledItem,
    };

    fn item(name: &str, human: Label, judge: Option<Label>) -> LabelledItem {
        LabelledItem {
            item: name.to_owned(),
            attempt: Some(1),
            humans: vec![HumanLabel {
                rater: None,
                label: human,
            }],
            judge: match judge {
                Some(label) => JudgeVerdict::Decided {
                    label,
                    reasoning: format!("reasoning on  {name}\n"),
                },
                None => JudgeVerdict::Undecided(format!("no answer for {name}")),
            },
        }
    }

    /// Every word the content holds is in both layouts: only the layout differs.
    #[test]
    fn table_and_markdown_say_the_same_words() {
        let (pass, fail) = (Label::Pass, Label::Fail);
        let items = vec![
            item("a", pass, Some(pass)),
            item("b", pass, Some(fail)),
            item("c", fail, Some(pass)),
            item("d", fail, Some(fail)),
            item("e", fail, Some(fail)),
            item("f", pass, None),
        ];
        let options = CalibrationOptions {
            z: 1.96,
            results: Some((12, 20)),
            label_budget: Some(10),
        };
        let calibration = Calibration::build(&items, &options);
        let (table, markdown) = (
            super::super::table::render(&calibration),
            super::super::markdown::render(&calibration),
        );
        let content = Content::of(&calibration);
        let mut words: Vec<String> = Vec::new();
        for block in content.sections.iter().flat_map(|s| &s.blocks) {
            match block {
                Block::Lines(lines) => words.extend(lines.iter().map(|l| l[1..].to_owned())),
                Block::Rates(rates) => {
                    words.extend(rates.iter().flat_map(|r| [r.says.clone(), r.value.clone()]))
                }
                Block::Matrix(rows) => words.extend(rows.iter().flatten().cloned()),
                Block::Rows(rows) => {
                    words.extend(rows.iter().flat_map(|(n, v)| [n.clone(), v.clone()]))
                }
                Block::Warning(w) => words.push(w.clone()),
                Block::Items(items) => words.extend(items.iter().flat_map(|i| {
                    let said = [i.kind.map(str::to_owned), i.verdicts.clone()];
                    said.into_iter()
                        .flatten()
                        .chain([i.name.clone(), i.text.clone()])
                })),
            }
        }
        let titles = content.sections.iter().filter_map(|s| s.title.as_ref());
        words.extend(titles.map(|t| t[1..].to_owned()));
        assert!(words.iter().any(|w| w.contains("false pass")));
        assert!(words.iter().any(|w| w.contains("no judge verdict")));
        for word in &words {
            assert!(
                table.contains(word.as_str()),
                "table lacks {word:?}:\n{table}"
            );
            assert!(
                markdown.contains(word.as_str()),
                "markdown lacks {word:?}:\n{markdown}"
            );
        }
    }
}
