//! Scripted turns: the first turn not yet used (or marked `repeat`) whose `when` matches
//! the agent's message answers it; a turn without `when` matches any message.

use proctor_core::task::ScriptedTurn;
use regex::Regex;

/// One attempt's script: the turns and which are used up.
#[derive(Debug)]
pub struct Script {
    turns: Vec<(Option<Regex>, ScriptedTurn)>,
    used: Vec<bool>,
}

impl Script {
    /// The turns, their patterns compiled (they compiled at load).
    pub fn new(turns: &[ScriptedTurn]) -> Script {
        let turns: Vec<(Option<Regex>, ScriptedTurn)> = turns
            .iter()
            .map(|turn| {
                let pattern = turn.when.as_deref().and_then(|p| Regex::new(p).ok());
                (pattern, turn.clone())
            })
            .collect();
        Script {
            used: vec![false; turns.len()],
            turns,
        }
    }

    /// The reply to `message`, using its turn up unless it repeats; `None` when no turn
    /// is left that matches.
    pub fn reply(&mut self, message: &str) -> Option<String> {
        let (index, turn) = self.turns.iter().enumerate().find(|(i, (pattern, turn))| {
            (turn.repeat || !self.used[*i]) && pattern.as_ref().is_none_or(|p| p.is_match(message))
        })?;
        self.used[index] = true;
        Some(turn.1.say.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(when: Option<&str>, say: &str, repeat: bool) -> ScriptedTurn {
        ScriptedTurn {
            when: when.map(str::to_owned),
            say: say.to_owned(),
            repeat,
        }
    }

    #[test]
    fn the_first_unused_matching_turn_answers() {
        let mut script = Script::new(&[
            turn(Some("(?i)order id"), "It is W1.", false),
            turn(Some("(?i)zip"), "94110", true),
            turn(None, "Thanks.", false),
        ]);
        assert_eq!(
            script.reply("What is your order id?").as_deref(),
            Some("It is W1.")
        );
        assert_eq!(
            script.reply("Your order id again?").as_deref(),
            Some("Thanks.")
        );
        assert_eq!(script.reply("Zip code?").as_deref(), Some("94110"));
        assert_eq!(script.reply("zip, once more?").as_deref(), Some("94110"));
        assert_eq!(script.reply("Anything else?"), None);
    }
}
