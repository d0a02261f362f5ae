//! The simulated user of a task with `user:`: one conversation per attempt, reached
//! through the served tool `ask_user {message}`. Each call is a turn: the agent's message
//! in, the user's reply out (recorded as the step's result). A reply holding `###STOP###`
//! ends the conversation, and so do `max_turns` replies; after that `ask_user` answers
//! with the tool error `conversation over`.
//!
//! - [`scripted`]: scripted `turns`, matched by regular expression.
//! - [`simulator`]: a user-simulator `command` speaking JSON lines.
//! - [`llm`]: an LLM user from `instructions`, replayable from cassettes.

pub mod llm;
pub mod scripted;
pub mod simulator;

use super::script::Caller;
use super::service::{ToolReply, tool_error};
use llm::{UserFailure, UserModel};
use proctor_core::task::{STOP, UserBackend, UserSpec};
use scripted::Script;
use serde::Serialize;
use serde_json::{Value, json};
use simulator::Simulator;
use std::sync::{Arc, Mutex};

/// The tool error after the conversation ended.
pub const CONVERSATION_OVER: &str = "conversation over";
/// Most bytes of messages one conversation holds (the task's input, the agent's messages
/// and the user's replies): the history is kept and sent whole with every turn, so an
/// agent sending huge messages must not grow proctor with every call
/// (docs/tools.md, "A simulated user").
pub const HISTORY_BUDGET: usize = 1 << 20;
/// The tool error once a message would take the conversation past [`HISTORY_BUDGET`].
pub const OVER_BUDGET: &str = "conversation over: its messages passed 1 MiB";
/// The tool error when no scripted turn matches.
pub const NO_SCRIPTED_REPLY: &str = "no scripted reply";

/// One message of the conversation, as a user simulator gets it in `history`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Said {
    /// `user` or `agent`.
    pub role: &'static str,
    pub content: String,
}

impl Said {
    fn user(content: String) -> Said {
        Said {
            role: "user",
            content,
        }
    }

    fn agent(content: String) -> Said {
        Said {
            role: "agent",
            content,
        }
    }

    /// Whether the agent said it.
    pub fn by_agent(&self) -> bool {
        self.role == "agent"
    }
}

/// One attempt's conversation with its simulated user.
#[derive(Debug)]
pub struct Conversation {
    spec: UserSpec,
    model: Option<Arc<UserModel>>,
    task_id: String,
    attempt: u64,
    /// Turns are taken one at a time: a simulator reads one request at a time, and the
    /// history is in order.
    state: tokio::sync::Mutex<State>,
    /// What failed on the user's side (a simulator that broke, a model that could not
    /// answer): such an attempt is not evaluated, since its conversation was not the
    /// task's; an infrastructure failure stops the run (docs/tools.md, "A simulated user").
    failures: Mutex<Vec<UserFailure>>,
}

#[derive(Debug)]
struct State {
    /// From the task's input (the user's first message) on.
    history: Vec<Said>,
    /// The bytes of `history`'s contents.
    history_bytes: usize,
    replies: u32,
    stopped: bool,
    script: Option<Script>,
    simulator: Option<Simulator>,
    /// Why the simulator can answer no more.
    broken: Option<String>,
}

impl Conversation {
    /// The conversation of attempt `attempt` of `task_id`, opened by `input`.
    pub fn new(
        spec: &UserSpec,
        model: Option<Arc<UserModel>>,
        task_id: &str,
        attempt: u64,
        input: &str,
    ) -> Conversation {
        let script = match &spec.backend {
            UserBackend::Turns(turns) => Some(Script::new(turns)),
            _ => None,
        };
        Conversation {
            spec: spec.clone(),
            model,
            task_id: task_id.to_owned(),
            attempt,
            state: tokio::sync::Mutex::new(State {
                history: vec![Said::user(input.to_owned())],
                history_bytes: input.len(),
                replies: 0,
                stopped: false,
                script,
                simulator: None,
                broken: None,
            }),
            failures: Mutex::default(),
        }
    }

    /// The reply to a call of `ask_user` (its arguments passed the schema: `message` is
    /// text), as the tool's result; a simulator runs contained as `caller`'s commands.
    pub async fn answer(&self, args: &Value, caller: &Caller<'_>) -> ToolReply {
        let message = args.get("message").and_then(Value::as_str).unwrap_or("");
        match self.reply(message, caller).await {
            Ok(reply) => ToolReply::Text {
                text: reply,
                is_error: false,
            },
            Err(message) => tool_error(message),
        }
    }

    /// The user's next turn, or why there is none.
    async fn reply(&self, message: &str, caller: &Caller<'_>) -> Result<String, String> {
        let mut state = self.state.lock().await;
        if state.stopped || state.replies >= self.spec.max_turns {
            return Err(CONVERSATION_OVER.to_owned());
        }
        if state.history_bytes.saturating_add(message.len()) > HISTORY_BUDGET {
            state.stopped = true;
            return Err(OVER_BUDGET.to_owned());
        }
        let reply = match &self.spec.backend {
            UserBackend::Turns(_) => state
                .script
                .as_mut()
                .and_then(|script| script.reply(message))
                .ok_or_else(|| NO_SCRIPTED_REPLY.to_owned())?,
            UserBackend::Command(command) => {
                let request = json!({
                    "message": message,
                    "history": state.history,
                    "task_id": self.task_id,
                    "attempt": self.attempt,
                });
                self.simulated(&mut state, command, &request, caller)
                    .await
                    .map_err(|e| self.failed(UserFailure::of_attempt(e)))?
            }
            UserBackend::Instructions(instructions) => {
                let Some(model) = &self.model else {
                    return Err(self.failed(UserFailure::of_attempt(
                        "no model plays the user (--user-model)".to_owned(),
                    )));
                };
                let timeout = std::time::Duration::from_secs_f64(self.spec.timeout_s.min(1e7));
                let reply = model.reply(instructions, &state.history, message);
                match tokio::time::timeout(timeout, reply).await {
                    Ok(reply) => reply,
                    Err(_) => Err(UserFailure::of_attempt(format!(
                        "the simulated user's model gave no reply within {}s",
                        self.spec.timeout_s
                    ))),
                }
                .map_err(|e| self.failed(e))?
            }
        };
        state.history_bytes += message.len() + reply.len();
        state.history.push(Said::agent(message.to_owned()));
        state.history.push(Said::user(reply.clone()));
        state.replies += 1;
        state.stopped = reply.contains(STOP);
        Ok(reply)
    }

    /// The simulator's reply, started at the first turn; one that failed is stopped and
    /// answers no more.
    async fn simulated(
        &self,
        state: &mut State,
        command: &proctor_core::tools::ScriptBackend,
        request: &Value,
        caller: &Caller<'_>,
    ) -> Result<String, String> {
        if let Some(broken) = &state.broken {
            return Err(broken.clone());
        }
        let simulator = match &mut state.simulator {
            Some(simulator) => simulator,
            None => state.simulator.insert(Simulator::start(command, caller)?),
        };
        let asked = simulator.ask(request).await;
        if let Err(error) = &asked {
            state.broken = Some(error.clone());
            if let Some(simulator) = state.simulator.take() {
                simulator.stop().await;
            }
        }
        asked
    }

    /// Notes a failure on the user's side, and gives it back as the tool error.
    fn failed(&self, failure: UserFailure) -> String {
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let message = failure.message.clone();
        if !failures.contains(&failure) {
            failures.push(failure);
        }
        message
    }

    /// The failures on the user's side, each once, as `user: ...`: those of this
    /// attempt, and the first that stops the run, if any.
    pub fn failures(&self) -> (Vec<String>, Option<String>) {
        let failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let said = |f: &UserFailure| format!("user: {}", f.message);
        let stopping = failures.iter().find(|f| f.infrastructure).map(said);
        let own = failures
            .iter()
            .filter(|f| !f.infrastructure)
            .map(said)
            .collect();
        (own, stopping)
    }

    /// Stops the simulator and everything it started, once no turn holds it: call after
    /// the attempt's calls were stopped.
    pub async fn stop(&self) {
        let simulator = self.state.lock().await.simulator.take();
        if let Some(simulator) = simulator {
            simulator.stop().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::isolation::contained_command::ContainedCommands;
    use proctor_core::task::ScriptedTurn;
    use proctor_core::tools::ScriptBackend;

    fn spec(backend: UserBackend, max_turns: u32) -> UserSpec {
        UserSpec {
            backend,
            max_turns,
            timeout_s: 10.0,
        }
    }

    /// The agent's `message`, answered as an attempt answers it: a simulator runs as a
    /// plain command (`--isolate none`).
    async fn say(
        conversation: &Conversation,
        (folder, commands): &(tempfile::TempDir, ContainedCommands),
        message: &str,
    ) -> Result<String, String> {
        let caller = Caller {
            task_id: &conversation.task_id,
            attempt: conversation.attempt,
            sandbox: folder.path(),
            state: None,
            commands,
        };
        conversation.reply(message, &caller).await
    }

    /// Where a test's simulators run, and their private folders.
    fn commands() -> (tempfile::TempDir, ContainedCommands) {
        let folder = tempfile::tempdir().unwrap();
        let commands = ContainedCommands::plain(folder.path().into());
        (folder, commands)
    }

    #[tokio::test]
    async fn the_stop_signal_ends_the_conversation() {
        let at = commands();
        let turns = vec![
            ScriptedTurn {
                when: Some("(?i)order id".into()),
                say: "It is W1.".into(),
                repeat: false,
            },
            ScriptedTurn {
                when: None,
                say: "Thanks! ###STOP###".into(),
                repeat: true,
            },
        ];
        let conversation =
            Conversation::new(&spec(UserBackend::Turns(turns), 10), None, "t", 0, "Hi");
        assert_eq!(
            say(&conversation, &at, "Your order id?").await.unwrap(),
            "It is W1."
        );
        assert_eq!(
            say(&conversation, &at, "Done.").await.unwrap(),
            "Thanks! ###STOP###"
        );
        assert_eq!(
            say(&conversation, &at, "More?").await.unwrap_err(),
            CONVERSATION_OVER
        );
        assert_eq!(conversation.failures(), (Vec::new(), None));
    }

    #[tokio::test]
    async fn max_turns_replies_end_it_and_unmatched_messages_get_no_reply() {
        let at = commands();
        let turns = vec![ScriptedTurn {
            when: Some("^ok".into()),
            say: "fine".into(),
            repeat: true,
        }];
        let conversation =
            Conversation::new(&spec(UserBackend::Turns(turns), 2), None, "t", 0, "Hi");
        assert_eq!(
            say(&conversation, &at, "what?").await.unwrap_err(),
            NO_SCRIPTED_REPLY
        );
        assert_eq!(say(&conversation, &at, "ok 1").await.unwrap(), "fine");
        assert_eq!(say(&conversation, &at, "ok 2").await.unwrap(), "fine");
        assert_eq!(
            say(&conversation, &at, "ok 3").await.unwrap_err(),
            CONVERSATION_OVER
        );
    }

    #[tokio::test]
    async fn messages_past_the_budget_end_the_conversation() {
        let at = commands();
        let turns = vec![ScriptedTurn {
            when: None,
            say: "go on".into(),
            repeat: true,
        }];
        let conversation =
            Conversation::new(&spec(UserBackend::Turns(turns), 1000), None, "t", 0, "Hi");
        let big = "x".repeat(HISTORY_BUDGET / 3);
        assert_eq!(say(&conversation, &at, &big).await.unwrap(), "go on");
        assert_eq!(say(&conversation, &at, &big).await.unwrap(), "go on");
        // The third would pass the budget: not kept, and the conversation is over.
        assert_eq!(
            say(&conversation, &at, &big).await.unwrap_err(),
            OVER_BUDGET
        );
        assert_eq!(
            say(&conversation, &at, "hi").await.unwrap_err(),
            CONVERSATION_OVER
        );
        let state = conversation.state.lock().await;
        assert!(
            state.history_bytes <= HISTORY_BUDGET,
            "{}",
            state.history_bytes
        );
        assert_eq!(state.history.len(), 5);
        assert_eq!(conversation.failures(), (Vec::new(), None));
    }

    fn simulator(dir: &std::path::Path, body: &str, timeout_s: f64) -> UserSpec {
        let path = dir.join("user.py");
        std::fs::write(&path, body).unwrap();
        let command = ScriptBackend {
            line: "python3 user.py".into(),
            argv: vec!["python3".into(), path.to_string_lossy().into_owned()],
            files: vec![path],
            timeout_s,
        };
        spec(UserBackend::Command(command), 10)
    }

    #[tokio::test]
    async fn a_simulator_runs_once_per_attempt_and_sees_the_history() {
        let at = commands();
        let dir = tempfile::tempdir().unwrap();
        let body = r#"import json, os, sys
count = 0
for line in sys.stdin:
    count += 1
    request = json.loads(line)
    said = "|".join(h["role"] + ":" + h["content"] for h in request["history"])
    reply = f"{os.getpid()} {count} {request['task_id']} {request['attempt']} {said} <{request['message']}>"
    print(json.dumps({"reply": reply}), flush=True)
"#;
        let spec = simulator(dir.path(), body, 10.0);
        let conversation = Conversation::new(&spec, None, "t@v", 3, "Hi");
        let first = say(&conversation, &at, "Hello").await.unwrap();
        let second = say(&conversation, &at, "Again").await.unwrap();
        let pid = first.split(' ').next().unwrap();
        assert_eq!(first, format!("{pid} 1 t@v 3 user:Hi <Hello>"));
        assert_eq!(
            second,
            format!("{pid} 2 t@v 3 user:Hi|agent:Hello|user:{first} <Again>")
        );
        conversation.stop().await;
    }

    #[tokio::test]
    async fn a_simulator_that_hangs_or_breaks_fails_the_turn_and_is_noted() {
        let at = commands();
        let dir = tempfile::tempdir().unwrap();
        let spec = simulator(dir.path(), "import time\ntime.sleep(30)\n", 0.3);
        let conversation = Conversation::new(&spec, None, "t", 0, "Hi");
        let error = say(&conversation, &at, "Hello").await.unwrap_err();
        assert!(error.contains("gave no reply within 0.3s"), "{error}");
        assert_eq!(say(&conversation, &at, "Again").await.unwrap_err(), error);
        assert_eq!(
            conversation.failures(),
            (vec![format!("user: {error}")], None)
        );
        let spec = simulator(dir.path(), "print('not json', flush=True)\n", 5.0);
        let conversation = Conversation::new(&spec, None, "t", 0, "Hi");
        let error = say(&conversation, &at, "Hello").await.unwrap_err();
        assert!(error.contains("the reply is not a JSON line"), "{error}");
    }
}
