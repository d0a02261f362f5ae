//! Putting a judge prompt together: the rubric, the fenced input and answer, and the
//! rendered end-state bundle, in the template's slots.

use super::fence::choose_fence;
use super::template::{Template, Values};
use crate::bundle::{Bundle, fenced, render};
use crate::client::{Message, Role};
use crate::hash::sha256_hex;

/// The placeholder fence used for the bundle's hash, so that the hash depends on the
/// files alone and not on the answer that also feeds the real fence.
const HASH_FENCE: &str = "FENCE";

/// A rendered prompt, with the hashes its provenance records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// The system message; `None` when the template has no `[system]` section.
    pub system: Option<String>,
    /// The user message, with the template's slots filled.
    pub user: String,
    /// The template's version, recorded in provenance and in the cassette key.
    pub template_version: String,
    /// SHA-256 of the rubric text as given.
    pub rubric_sha256: String,
    /// SHA-256 of the bundle rendered with a fixed placeholder fence.
    pub bundle_sha256: String,
    /// The fence name around agent-written data in this prompt.
    pub fence: String,
}

impl Prompt {
    /// The chat messages: the system message, if any, then the user message.
    pub fn messages(&self) -> Vec<Message> {
        let mut messages = Vec::with_capacity(2);
        if let Some(system) = &self.system {
            messages.push(Message {
                role: Role::System,
                content: system.clone(),
            });
        }
        messages.push(Message {
            role: Role::User,
            content: self.user.clone(),
        });
        messages
    }
}

/// Renders `template` for one run.
pub fn build_prompt(
    template: &Template,
    rubric: &str,
    input: &str,
    answer: Option<&str>,
    bundle: &Bundle,
) -> Prompt {
    let unfenced = render(bundle, HASH_FENCE);
    let fence = choose_fence(&[input, answer.unwrap_or(""), &unfenced]);
    let files = render(bundle, &fence);
    let mut input_block = String::new();
    fenced(&mut input_block, input, &fence);
    let answer_block = match answer {
        Some(answer) => {
            let mut block = String::new();
            fenced(&mut block, answer, &fence);
            block
        }
        None => "The agent gave no final answer.\n".to_owned(),
    };
    let (system, user) = template.render(&Values {
        rubric: rubric.trim(),
        input: input_block.trim_end(),
        answer: answer_block.trim_end(),
        files: files.trim_end(),
        fence: &fence,
    });
    Prompt {
        system,
        user,
        template_version: template.version().to_owned(),
        rubric_sha256: sha256_hex(rubric.as_bytes()),
        bundle_sha256: sha256_hex(unfenced.as_bytes()),
        fence,
    }
}
