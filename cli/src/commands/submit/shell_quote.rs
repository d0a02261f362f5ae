//! Quoting for the `sh` scripts `proctor submit` writes: every word the user typed reaches
//! `proctor run` exactly as typed, whatever it holds (docs/cluster.md).

/// `word` as one `sh` word: unchanged when it holds only characters `sh` never treats
/// specially, else in single quotes, where only `'` itself needs care (`'\''`).
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-+=@%,./:".contains(c));
    if plain {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::quote;

    /// What `sh` makes of `text`: the words `printf` receives, one per line.
    fn sh_words(text: &str) -> Vec<String> {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("printf '%s\\n' {text}"))
            .output()
            .unwrap();
        assert!(out.status.success());
        let said = String::from_utf8(out.stdout).unwrap();
        said.strip_suffix('\n')
            .unwrap()
            .split('\n')
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn quote_leaves_plain_words_alone() {
        assert_eq!(quote("--tasks"), "--tasks");
        assert_eq!(quote("/srv/suite/tasks.yaml"), "/srv/suite/tasks.yaml");
        assert_eq!(quote("--max-memory=2G"), "--max-memory=2G");
    }

    #[test]
    fn quote_keeps_spaces_quotes_dollars_and_globs_as_typed() {
        for word in [
            "python3 agent.py --model x",
            "it's",
            "say \"hi\"",
            "$HOME and ${PATH} and $(reboot) and `id`",
            "*.jsonl ? [ab]",
            "a\\b",
            "semi; colon & amp | pipe > out",
            "''",
            "",
            "~",
        ] {
            assert_eq!(
                sh_words(&quote(word)),
                [word],
                "{word:?} as {}",
                quote(word)
            );
        }
    }

    #[test]
    fn quote_keeps_newlines_inside_one_word() {
        // printf prints the word's own newline too, so it is split back here.
        let word = "line one\nline two";
        assert_eq!(sh_words(&quote(word)), ["line one", "line two"]);
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("set -- {}; echo $#", quote(word)))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), "1\n");
    }
}
