//! The judge configuration of `proctor calibrate --set`, from the judge options every command
//! shares ([`JudgeArgs`]), so a calibration measures exactly the judge a run uses: provider,
//! model, base URL, template, samples, cassette.

use crate::args::JudgeArgs;
use proctor_judge::JudgeConfig;

/// The library configuration. A calibration set exists to be judged, so a missing model
/// is bad usage (exit 2).
pub fn config(args: &JudgeArgs) -> anyhow::Result<JudgeConfig> {
    let Some(model) = args.judge_model.as_deref().filter(|m| !m.trim().is_empty()) else {
        crate::exit::bail_input!(
            "--set runs the judge, so it needs --judge-model (and --judge-provider unless anthropic; --cassette DIR for recorded answers)"
        );
    };
    Ok(args.config(model))
}
