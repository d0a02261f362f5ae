//! Finding the recorded request nearest to a missed one, and saying how they differ: a
//! miss is usually one changed field (a new model, an edited template, a changed file in
//! the bundle), and naming it saves a debugging session. Fence names are masked before
//! comparing: they derive from the whole content, so they differ whenever anything does,
//! and would hide where the real change is.

use super::CanonicalRequest;
use super::recording::Recording;
use std::path::Path;

/// A description of the recorded request closest to `wanted`, for a miss message.
pub(super) fn closest(dir: &Path, wanted: &CanonicalRequest) -> String {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return format!("the cassette directory {} does not exist", dir.display());
    };
    let mut best: Option<(f64, String, CanonicalRequest)> = None;
    for entry in entries.flatten() {
        let path = entry.path();
        let is_recording = path.extension().is_some_and(|e| e == "json")
            && !entry.file_name().to_string_lossy().starts_with('.');
        if !is_recording {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(recording) = serde_json::from_str::<Recording>(&text) else {
            continue;
        };
        let score = similarity(wanted, &recording.request);
        let better = match &best {
            None => true,
            // Ties go to the smaller key, so the message is stable.
            Some((top, key, _)) => score > *top || (score == *top && recording.key < *key),
        };
        if better {
            best = Some((score, recording.key, recording.request));
        }
    }
    match best {
        None => "the cassette holds no recordings".to_owned(),
        Some((_, key, request)) => format!(
            "closest recorded request: {key}, which differs in {}",
            differences(wanted, &request).join(", ")
        ),
    }
}

/// A score in [0, 6]: one point per equal scalar field, plus the messages' similarity.
fn similarity(a: &CanonicalRequest, b: &CanonicalRequest) -> f64 {
    let same = |equal: bool| if equal { 1.0 } else { 0.0 };
    let messages = if a.messages.len() == b.messages.len() && !a.messages.is_empty() {
        a.messages
            .iter()
            .zip(&b.messages)
            .map(|(x, y)| {
                let (x_text, y_text) = (mask_fences(&x.content), mask_fences(&y.content));
                let common = common_prefix(&x_text, &y_text);
                let longest = x_text.len().max(y_text.len()).max(1);
                same(x.role == y.role) * common as f64 / longest as f64
            })
            .sum::<f64>()
            / a.messages.len() as f64
    } else {
        0.0
    };
    same(a.provider == b.provider)
        + same(a.model == b.model)
        + same(a.template_version == b.template_version)
        + same(a.sample == b.sample)
        + same(a.parameters == b.parameters)
        + messages
}

/// What differs, field by field; for messages, where the text first differs.
fn differences(wanted: &CanonicalRequest, found: &CanonicalRequest) -> Vec<String> {
    let mut out = Vec::new();
    let mut field =
        |name: &str, a: &dyn std::fmt::Display, b: &dyn std::fmt::Display, equal: bool| {
            if !equal {
                out.push(format!("{name} (wanted {a}, recorded {b})"));
            }
        };
    field(
        "provider",
        &wanted.provider,
        &found.provider,
        wanted.provider == found.provider,
    );
    field(
        "model",
        &wanted.model,
        &found.model,
        wanted.model == found.model,
    );
    field(
        "template_version",
        &wanted.template_version,
        &found.template_version,
        wanted.template_version == found.template_version,
    );
    field(
        "sample",
        &wanted.sample,
        &found.sample,
        wanted.sample == found.sample,
    );
    if wanted.parameters != found.parameters {
        out.push(format!(
            "parameters (wanted temperature {} max_tokens {}, recorded temperature {} max_tokens {})",
            wanted.parameters.temperature,
            wanted.parameters.max_tokens,
            found.parameters.temperature,
            found.parameters.max_tokens
        ));
    }
    if wanted.messages.len() != found.messages.len() {
        out.push(format!(
            "messages (wanted {}, recorded {})",
            wanted.messages.len(),
            found.messages.len()
        ));
    } else {
        for (index, (a, b)) in wanted.messages.iter().zip(&found.messages).enumerate() {
            if a.role != b.role {
                out.push(format!("messages[{index}] role"));
                continue;
            }
            // Fence names differ whenever anything does: not worth reporting on their own.
            let (a_text, b_text) = (mask_fences(&a.content), mask_fences(&b.content));
            if a_text != b_text {
                let at = common_prefix(&a_text, &b_text);
                let line = a_text[..at].matches('\n').count() + 1;
                out.push(format!(
                    "messages[{index}] at line {line}: wanted {:?}, recorded {:?}",
                    snippet(&a_text, at),
                    snippet(&b_text, at)
                ));
            }
        }
    }
    if out.is_empty() {
        out.push("nothing (the file is named for another key)".to_owned());
    }
    out
}

/// `DATA-` and 16 hex digits, the fence names of [`crate::prompt::choose_fence`],
/// replaced by `DATA-*`.
fn mask_fences(text: &str) -> String {
    const PREFIX: &str = "DATA-";
    const DIGITS: usize = 16;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(PREFIX) {
        let after = &rest[at + PREFIX.len()..];
        let is_fence = after.len() >= DIGITS
            && after.as_bytes()[..DIGITS]
                .iter()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b));
        out.push_str(&rest[..at + PREFIX.len()]);
        if is_fence {
            out.push('*');
            rest = &after[DIGITS..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Bytes in common at the start, on a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map(|((i, _), _)| i)
        .unwrap_or_else(|| a.len().min(b.len()))
}

/// A few characters from byte `at` on.
fn snippet(text: &str, at: usize) -> String {
    text[at..].chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_fence_names_only() {
        assert_eq!(
            mask_fences("<<<DATA-0123456789abcdef\nx\nDATA-0123456789abcdef>>>"),
            "<<<DATA-*\nx\nDATA-*>>>"
        );
        assert_eq!(
            mask_fences("DATA-xyz and DATA-0123"),
            "DATA-xyz and DATA-0123"
        );
    }

    #[test]
    fn common_prefix_respects_characters() {
        assert_eq!(common_prefix("abc", "abd"), 2);
        assert_eq!(common_prefix("ab", "abc"), 2);
        assert_eq!(common_prefix("éa", "éb"), 2);
        assert_eq!(common_prefix("", "x"), 0);
    }
}
