//! The rubric prompt: the versioned template, the content-derived fence around
//! agent-written data, and rendering one run's prompt.

mod build;
mod fence;
mod template;

pub use build::Prompt;
pub(crate) use build::build_prompt;
pub use template::{BUILTIN_VERSION, Template, TemplateError, Variable};
