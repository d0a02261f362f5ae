//! The bundle as prompt text. Paths are JSON-quoted (a file name cannot break a line or
//! pose as a header), contents sit between fence lines the agent cannot guess, and every
//! cut is marked outside the fence.

use super::{Bundle, Content, FileStatus};
use std::fmt::Write;

/// Renders `bundle`, fencing contents with `<<<{fence}` / `{fence}>>>` lines.
pub fn render(bundle: &Bundle, fence: &str) -> String {
    let mut out = String::new();
    if !bundle.sandbox {
        out.push_str("No sandbox was kept for this run: its files cannot be shown.\n");
        return out;
    }
    summary(&mut out, bundle);
    for entry in &bundle.entries {
        let path = quote(&entry.path);
        let status = entry.status;
        let size = entry.size;
        let sha = &entry.sha256;
        // Writing to a String cannot fail.
        let _ = match &entry.content {
            Content::Gone => writeln!(out, "\n{path}: {status} (was {size} bytes, sha256 {sha})"),
            Content::Binary => writeln!(
                out,
                "\n{path}: {status}, {size} bytes, sha256 {sha}, binary: not shown"
            ),
            Content::Symlink { target } => writeln!(
                out,
                "\n{path}: {status}, symlink to {}: not followed",
                quote(target)
            ),
            Content::Special => writeln!(out, "\n{path}: {status}, not a regular file: not read"),
            Content::Unreadable(why) => {
                writeln!(out, "\n{path}: {status}, unreadable: {}", quote(why))
            }
            Content::OverBudget => writeln!(
                out,
                "\n{path}: {status}, {size} bytes, sha256 {sha}, text: not shown (the total limit of {} bytes was reached)",
                bundle.limits.total
            ),
            Content::Text { text, hidden } => {
                let _ = writeln!(out, "\n{path}: {status}, {size} bytes, sha256 {sha}");
                fenced(&mut out, text, fence);
                if *hidden > 0 {
                    let shown = size - hidden;
                    writeln!(
                        out,
                        "[truncated: only the first {shown} of {size} bytes are shown; {hidden} bytes cut]"
                    )
                } else {
                    Ok(())
                }
            }
        };
    }
    if bundle.unlisted > 0 {
        let _ = writeln!(
            out,
            "\n[{} more files not listed: the limit is {} files]",
            bundle.unlisted, bundle.limits.max_files
        );
    }
    out
}

/// `content` between fence lines; a closing newline is added when missing.
pub(crate) fn fenced(out: &mut String, content: &str, fence: &str) {
    let _ = writeln!(out, "<<<{fence}");
    out.push_str(content);
    if !content.is_empty() && !content.ends_with('\n') {
        out.push('\n');
    }
    let _ = writeln!(out, "{fence}>>>");
}

fn summary(out: &mut String, bundle: &Bundle) {
    let count = |status: FileStatus| bundle.entries.iter().filter(|e| e.status == status).count();
    let listed = bundle.entries.len() + bundle.unlisted;
    let selection = if bundle.globs.is_empty() {
        String::new()
    } else {
        let globs: Vec<String> = bundle.globs.iter().map(|g| quote(g)).collect();
        format!(" matching judge_files [{}]", globs.join(", "))
    };
    let _ = writeln!(
        out,
        "{listed} files{selection}: {} added, {} modified, {} unchanged, {} deleted (against the seed files).",
        count(FileStatus::Added),
        count(FileStatus::Modified),
        count(FileStatus::Unchanged),
        count(FileStatus::Deleted),
    );
    out.push_str(
        "Text files are shown between fence lines; binary files are listed but not shown.\n",
    );
}

/// A JSON string literal: quotes, backslashes and line breaks escaped.
fn quote(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::{BundleEntry, BundleLimits};

    #[test]
    fn renders_each_kind_of_entry() {
        let entry = |path: &str, status, content| BundleEntry {
            path: path.into(),
            status,
            size: 10,
            sha256: "ab".into(),
            content,
        };
        let bundle = Bundle {
            sandbox: true,
            globs: vec![],
            entries: vec![
                entry(
                    "a.log",
                    FileStatus::Added,
                    Content::Text {
                        text: "hello".into(),
                        hidden: 5,
                    },
                ),
                entry("b.bin", FileStatus::Modified, Content::Binary),
                entry("c.txt", FileStatus::Deleted, Content::Gone),
                entry("evil\nname", FileStatus::Added, Content::OverBudget),
            ],
            unlisted: 2,
            limits: BundleLimits::default(),
        };
        let text = render(&bundle, "F");
        let expected = "\
6 files: 2 added, 1 modified, 0 unchanged, 1 deleted (against the seed files).
Text files are shown between fence lines; binary files are listed but not shown.

\"a.log\": added, 10 bytes, sha256 ab
<<<F
hello
F>>>
[truncated: only the first 5 of 10 bytes are shown; 5 bytes cut]

\"b.bin\": modified, 10 bytes, sha256 ab, binary: not shown

\"c.txt\": deleted (was 10 bytes, sha256 ab)

\"evil\\nname\": added, 10 bytes, sha256 ab, text: not shown (the total limit of 100000 bytes was reached)

[2 more files not listed: the limit is 500 files]
";
        assert_eq!(text, expected);
    }

    #[test]
    fn no_sandbox_says_so() {
        let text = render(&Bundle::default(), "F");
        assert!(text.starts_with("No sandbox was kept"));
    }
}
