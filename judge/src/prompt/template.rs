//! Prompt templates: a readable text file with `[system]` and `[user]` sections and
//! `{{variable}}` slots. Unknown variables are an error, never left in the prompt.

use crate::hash::sha256_hex;
use std::path::{Path, PathBuf};

/// The built-in template's text.
const BUILTIN_V1: &str = include_str!("template_v1.txt");
/// The built-in template's version, recorded in provenance and cassette keys.
pub const BUILTIN_VERSION: &str = "proctor-v1";

/// A slot the judge fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variable {
    /// `{{rubric}}`: the rubric text, trimmed. Every template must use it.
    Rubric,
    /// `{{input}}`: the task's input, fenced.
    Input,
    /// `{{answer}}`: the agent's final answer, fenced, or a line saying it gave none.
    Answer,
    /// `{{files}}`: the rendered end-state bundle, contents fenced.
    Files,
    /// `{{fence}}`: the fence's name, for instructions about the data lines.
    Fence,
}

impl Variable {
    const ALL: [Variable; 5] = [
        Variable::Rubric,
        Variable::Input,
        Variable::Answer,
        Variable::Files,
        Variable::Fence,
    ];

    /// The name written between the double braces.
    pub fn name(self) -> &'static str {
        match self {
            Variable::Rubric => "rubric",
            Variable::Input => "input",
            Variable::Answer => "answer",
            Variable::Files => "files",
            Variable::Fence => "fence",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Slot(Variable),
}

/// Why a template could not be used; each message names the template and line.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    /// A user's template file could not be read.
    #[error("cannot read the judge template {path}: {source}")]
    Read {
        /// The template file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A `{{name}}` that is not one of the five variables.
    #[error(
        "{origin}, line {line}: unknown template variable {{{{{name}}}}}; known: rubric, input, answer, files, fence"
    )]
    UnknownVariable {
        /// Where the template came from: its path, or the built-in template.
        origin: String,
        /// The line of the `{{`, from 1.
        line: usize,
        /// The name between the braces, trimmed.
        name: String,
    },
    /// A `{{` without a later `}}`.
    #[error("{origin}, line {line}: `{{{{` is never closed with `}}}}`")]
    Unclosed {
        /// Where the template came from: its path, or the built-in template.
        origin: String,
        /// The line of the `{{`, from 1.
        line: usize,
    },
    /// A `[system]` or `[user]` header appears twice.
    #[error("{origin}, line {line}: section [{section}] appears twice")]
    DuplicateSection {
        /// Where the template came from: its path, or the built-in template.
        origin: String,
        /// The line of the second header, from 1.
        line: usize,
        /// `system` or `user`.
        section: String,
    },
    /// No section uses `{{rubric}}`: the judge would grade without the criteria.
    #[error("{origin}: the template never uses {{{{rubric}}}}")]
    NoRubric {
        /// Where the template came from: its path, or the built-in template.
        origin: String,
    },
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    version: String,
    system: Option<Vec<Piece>>,
    user: Vec<Piece>,
}

/// The text for each variable.
#[derive(Debug, Clone, Copy)]
pub struct Values<'a> {
    pub rubric: &'a str,
    pub input: &'a str,
    pub answer: &'a str,
    pub files: &'a str,
    pub fence: &'a str,
}

impl Values<'_> {
    fn get(&self, variable: Variable) -> &str {
        match variable {
            Variable::Rubric => self.rubric,
            Variable::Input => self.input,
            Variable::Answer => self.answer,
            Variable::Files => self.files,
            Variable::Fence => self.fence,
        }
    }
}

impl Template {
    /// The built-in template, version `proctor-v1`.
    pub fn builtin() -> Template {
        Template::parse(BUILTIN_V1, "the built-in judge template", BUILTIN_VERSION)
            .expect("the built-in template parses")
    }

    /// A user's template file, versioned `custom-` plus the first 16 hex digits of its
    /// SHA-256, so that editing it changes every cassette key.
    pub fn from_file(path: &Path) -> Result<Template, TemplateError> {
        let text = std::fs::read_to_string(path).map_err(|source| TemplateError::Read {
            path: path.to_owned(),
            source,
        })?;
        let version = format!("custom-{}", &sha256_hex(text.as_bytes())[..16]);
        Template::parse(&text, &path.display().to_string(), &version)
    }

    /// Parses template text. Without section headers the whole text is the user
    /// message; with them, text before the first header is a note and is dropped.
    pub fn parse(text: &str, origin: &str, version: &str) -> Result<Template, TemplateError> {
        let mut system: Option<(usize, String)> = None;
        let mut user: Option<(usize, String)> = None;
        if text.lines().any(|l| section_name(l).is_some()) {
            // (section, first body line, body)
            let mut sections: Vec<(&str, usize, String)> = Vec::new();
            for (index, line) in text.lines().enumerate() {
                if let Some(name) = section_name(line) {
                    sections.push((name, index + 2, String::new()));
                } else if let Some((_, _, body)) = sections.last_mut() {
                    body.push_str(line);
                    body.push('\n');
                }
            }
            for (name, first_line, body) in sections {
                let slot = if name == "system" {
                    &mut system
                } else {
                    &mut user
                };
                if slot.is_some() {
                    return Err(TemplateError::DuplicateSection {
                        origin: origin.to_owned(),
                        line: first_line - 1,
                        section: name.to_owned(),
                    });
                }
                *slot = Some((first_line, body));
            }
        } else {
            user = Some((1, text.to_owned()));
        }
        let (user_line, user_text) = user.unwrap_or((1, String::new()));
        let user_pieces = pieces(&user_text, origin, user_line)?;
        let system_pieces = system
            .map(|(line, body)| pieces(&body, origin, line))
            .transpose()?;
        let uses_rubric = user_pieces
            .iter()
            .chain(system_pieces.iter().flatten())
            .any(|p| *p == Piece::Slot(Variable::Rubric));
        if !uses_rubric {
            return Err(TemplateError::NoRubric {
                origin: origin.to_owned(),
            });
        }
        Ok(Template {
            version: version.to_owned(),
            system: system_pieces,
            user: user_pieces,
        })
    }

    /// The version recorded in provenance and cassette keys: `proctor-v1` for the built-in
    /// template, `custom-` and 16 hex digits of its SHA-256 for a user's file.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The system message (if the template has one) and the user message.
    pub fn render(&self, values: &Values<'_>) -> (Option<String>, String) {
        let fill = |pieces: &[Piece]| {
            let mut out = String::new();
            for piece in pieces {
                match piece {
                    Piece::Text(text) => out.push_str(text),
                    Piece::Slot(variable) => out.push_str(values.get(*variable)),
                }
            }
            out.trim().to_owned()
        };
        (self.system.as_deref().map(fill), fill(&self.user))
    }
}

/// `[system]` or `[user]` alone on a line.
fn section_name(line: &str) -> Option<&'static str> {
    match line.trim() {
        "[system]" => Some("system"),
        "[user]" => Some("user"),
        _ => None,
    }
}

/// Splits text into literal pieces and `{{ name }}` slots.
fn pieces(text: &str, origin: &str, first_line: usize) -> Result<Vec<Piece>, TemplateError> {
    let mut out = Vec::new();
    let mut rest = text;
    let line_of = |rest: &str| first_line + text[..text.len() - rest.len()].matches('\n').count();
    while let Some(start) = rest.find("{{") {
        if start > 0 {
            out.push(Piece::Text(rest[..start].to_owned()));
        }
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            return Err(TemplateError::Unclosed {
                origin: origin.to_owned(),
                line: line_of(&rest[start..]),
            });
        };
        let name = after[..end].trim();
        let variable = Variable::ALL
            .into_iter()
            .find(|v| v.name() == name)
            .ok_or_else(|| TemplateError::UnknownVariable {
                origin: origin.to_owned(),
                line: line_of(&rest[start..]),
                name: name.to_owned(),
            })?;
        out.push(Piece::Slot(variable));
        rest = &after[end + 2..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest.to_owned()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values() -> Values<'static> {
        Values {
            rubric: "R",
            input: "I",
            answer: "A",
            files: "F",
            fence: "X",
        }
    }

    #[test]
    fn builtin_has_both_sections_and_every_slot() {
        let template = Template::builtin();
        assert_eq!(template.version(), "proctor-v1");
        let (system, user) = template.render(&values());
        let system = system.unwrap();
        assert!(system.starts_with("You are the grader"));
        assert!(system.contains("`<<<X`") && system.contains("`X>>>`"));
        assert!(user.starts_with("# Rubric\n\nR\n"));
        assert!(!user.contains("{{") && !system.contains("{{"));
        assert!(!user.contains("note for readers"), "the note is not sent");
    }

    #[test]
    fn without_sections_the_whole_text_is_the_user_message() {
        let t = Template::parse("Grade {{ rubric }} on {{answer}}.", "t", "v").unwrap();
        assert_eq!(t.render(&values()), (None, "Grade R on A.".to_owned()));
    }

    #[test]
    fn unknown_variables_are_errors_naming_the_line() {
        let err = Template::parse("[user]\n{{rubric}}\n{{score}}\n", "my.txt", "v").unwrap_err();
        assert_eq!(
            err.to_string(),
            "my.txt, line 3: unknown template variable {{score}}; known: rubric, input, answer, files, fence"
        );
    }

    #[test]
    fn unclosed_duplicate_and_rubricless_templates_are_refused() {
        let unclosed = Template::parse("{{rubric}} {{answer", "t", "v").unwrap_err();
        assert!(matches!(unclosed, TemplateError::Unclosed { line: 1, .. }));
        let twice = Template::parse("[user]\n{{rubric}}\n[user]\n", "t", "v").unwrap_err();
        assert!(matches!(
            twice,
            TemplateError::DuplicateSection { line: 3, .. }
        ));
        let no_rubric = Template::parse("{{answer}}", "t", "v").unwrap_err();
        assert_eq!(
            no_rubric.to_string(),
            "t: the template never uses {{rubric}}"
        );
    }

    #[test]
    fn file_templates_are_versioned_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.txt");
        std::fs::write(&path, "{{rubric}}").unwrap();
        let a = Template::from_file(&path).unwrap();
        std::fs::write(&path, "{{rubric}}!").unwrap();
        let b = Template::from_file(&path).unwrap();
        assert!(a.version().starts_with("custom-"));
        assert_eq!(a.version().len(), "custom-".len() + 16);
        assert_ne!(a.version(), b.version());
        let missing = Template::from_file(&dir.path().join("none.txt")).unwrap_err();
        assert!(missing.to_string().contains("none.txt"));
    }
}
