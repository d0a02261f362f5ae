//! One attempt's served tools: every call is numbered, checked (known tool, within the
//! step cap, arguments valid for the schema), possibly given a fault, answered by its
//! backend and recorded, whatever happened.
//!
//! A call runs in a task of its own, not in its request's: a client that hangs up does not
//! stop it, and it is recorded when it ends. When the attempt is closed, calls still
//! running are stopped and recorded as cut off ([`super::record::CUT_OFF`]), and later
//! ones are refused before anything runs, so every call that ran is in the record.

use super::call_args::CallArgs;
use super::faults;
use super::record::{CUT_OFF, MAX_RECORDED_CALLS, RecordedCall, Recorder};
use super::script::{self, Caller};
use super::server_backend::ServerBackends;
use super::service::{Reply, ToolReply, ToolService, tool_error};
use super::user::Conversation;
use super::user::llm::UserModel;
use crate::run::isolation::contained_command::ContainedCommands;
use proctor_core::faults::{FaultFired, FaultKind, FaultMissed, FaultPlan};
use proctor_core::task::Task;
use proctor_core::tools::{ArgumentSchema, ToolBackend, ToolSpec, canned_result};
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Instant;
use tokio::sync::Notify;

/// A task's tools with their schemas compiled, made once per run and shared by its
/// attempts.
#[derive(Debug)]
pub struct TaskTools {
    specs: Vec<ToolSpec>,
    schemas: Vec<ArgumentSchema>,
    /// The model playing the task's LLM user, if it has one.
    user_model: Option<Arc<UserModel>>,
}

impl TaskTools {
    /// `None` when the task serves no tools. A task with an LLM user needs `user_model`.
    pub fn of(
        task: &Task,
        user_model: Option<&Arc<UserModel>>,
    ) -> Result<Option<Arc<TaskTools>>, String> {
        if task.tools.is_empty() {
            return Ok(None);
        }
        let schemas = task
            .tools
            .iter()
            .map(|tool| {
                ArgumentSchema::compile(tool)
                    .map_err(|e| format!("task `{}`: tool `{}`: {e}", task.id, tool.name))
            })
            .collect::<Result<_, _>>()?;
        let llm_user = task
            .user()
            .is_some_and(proctor_core::task::UserSpec::needs_model);
        if llm_user && user_model.is_none() {
            return Err(format!(
                "task `{}` has an LLM user (`user: {{instructions}}`), and no model plays it: pass --user-model (with --cassette DIR for recorded answers)",
                task.id
            ));
        }
        Ok(Some(Arc::new(TaskTools {
            specs: task.tools.clone(),
            schemas,
            user_model: user_model.filter(|_| llm_user).cloned(),
        })))
    }
}

/// What an attempt's tools know about it.
#[derive(Debug)]
pub struct AttemptTools {
    tools: Arc<TaskTools>,
    task_id: String,
    attempt: u64,
    /// The `script` backends' working folder.
    sandbox: PathBuf,
    /// The tool state folder of the attempt, which backends get as `PROCTOR_STATE_DIR`.
    state: Option<PathBuf>,
    /// Runs the `script` and `server` backends contained.
    commands: ContainedCommands,
    /// The `server` backends' processes, started on first use.
    servers: ServerBackends,
    step_cap: Option<u64>,
    /// Which calls fail, drawn from the attempt seed.
    faults: FaultPlan,
    /// Calls so far per tool, for faults that name a call number.
    calls_per_tool: Mutex<HashMap<String, u32>>,
    pub recorder: Recorder,
    /// The faults that fired, with the step they fired on.
    pub fired: Mutex<Vec<FaultFired>>,
    /// Itself, for the tasks its calls run in.
    me: Weak<AttemptTools>,
    flight: Mutex<Flight>,
    /// Requests of this attempt being read or answered.
    requests: AtomicUsize,
    /// Woken when `requests` falls.
    quiet: Notify,
    /// Requests refused for their size: how many, and the largest size seen.
    pub oversized: AtomicU64,
    pub oversized_bytes: AtomicU64,
    /// The conversation with the task's simulated user, when it has one.
    pub user: Option<Conversation>,
}

/// The calls running now, and whether new ones are still served.
#[derive(Debug, Default)]
struct Flight {
    closed: bool,
    calls: HashMap<usize, Running>,
}

/// A call running in its own task: enough to record it if it is cut off.
#[derive(Debug)]
struct Running {
    tool: String,
    args: Value,
    started_at: jiff::Timestamp,
    clock: Instant,
    task: tokio::task::AbortHandle,
}

/// A request of an attempt, from its head until its answer: [`AttemptTools::settled`]
/// waits for none to be left.
#[derive(Debug)]
pub struct Request(Arc<AttemptTools>);

impl Drop for Request {
    fn drop(&mut self) {
        self.0.requests.fetch_sub(1, Ordering::SeqCst);
        self.0.quiet.notify_waiters();
    }
}

impl AttemptTools {
    pub fn new(
        tools: Arc<TaskTools>,
        task: &Task,
        attempt: u64,
        folders: (PathBuf, Option<PathBuf>),
        faults: FaultPlan,
        commands: ContainedCommands,
    ) -> Arc<AttemptTools> {
        let user = task.user().map(|spec| {
            Conversation::new(
                spec,
                tools.user_model.clone(),
                &task.id,
                attempt,
                &task.input,
            )
        });
        let (sandbox, state) = folders;
        Arc::new_cyclic(|me| AttemptTools {
            tools,
            task_id: task.id.clone(),
            attempt,
            sandbox,
            state,
            commands,
            servers: ServerBackends::default(),
            step_cap: task.step_cap,
            faults,
            calls_per_tool: Mutex::default(),
            recorder: Recorder::default(),
            fired: Mutex::default(),
            me: me.clone(),
            flight: Mutex::default(),
            requests: AtomicUsize::new(0),
            quiet: Notify::new(),
            oversized: AtomicU64::new(0),
            oversized_bytes: AtomicU64::new(0),
            user,
        })
    }

    fn flight(&self) -> MutexGuard<'_, Flight> {
        self.flight.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts a request of this attempt from its head on.
    pub fn request(self: &Arc<Self>) -> Request {
        self.requests.fetch_add(1, Ordering::SeqCst);
        Request(self.clone())
    }

    /// Waits until no request of this attempt is being read or answered, or `deadline`.
    pub async fn settled(&self, deadline: tokio::time::Instant) {
        loop {
            let quiet = self.quiet.notified();
            tokio::pin!(quiet);
            quiet.as_mut().enable();
            if self.requests.load(Ordering::SeqCst) == 0 {
                return;
            }
            if tokio::time::timeout_at(deadline, quiet).await.is_err() {
                return;
            }
        }
    }

    /// Serves no more calls, and stops the ones still running, recording them as cut off.
    pub fn close(&self) {
        let mut flight = self.flight();
        flight.closed = true;
        for (step, running) in flight.calls.drain() {
            running.task.abort();
            self.recorder.push(
                step,
                RecordedCall {
                    tool: running.tool,
                    args: running.args,
                    result: None,
                    error: Some(CUT_OFF.to_owned()),
                    faults: Vec::new(),
                    started_at: running.started_at,
                    duration: running.clock.elapsed(),
                },
            );
        }
    }

    /// Stops the attempt's `server` backends and user simulator; call after
    /// [`AttemptTools::close`].
    pub async fn stop_servers(&self) {
        self.servers.stop_all().await;
        if let Some(user) = &self.user {
            user.stop().await;
        }
    }

    fn caller(&self) -> Caller<'_> {
        Caller {
            task_id: &self.task_id,
            attempt: self.attempt,
            sandbox: &self.sandbox,
            state: self.state.as_deref(),
            commands: &self.commands,
        }
    }

    /// Records call `step` as it ended, unless it was cut off (and recorded) first.
    fn ended(&self, step: usize, call: RecordedCall) {
        let mut flight = self.flight();
        if flight.calls.remove(&step).is_some() {
            self.recorder.push(step, call);
        }
    }

    async fn answer(&self, name: &str, args: Option<CallArgs>) -> ToolReply {
        let started_at = jiff::Timestamp::now();
        let clock = Instant::now();
        let args = args.unwrap_or_else(CallArgs::empty);
        let Some(me) = self.me.upgrade() else {
            return tool_error(ENDED.to_owned());
        };
        let task = {
            let mut flight = self.flight();
            if flight.closed {
                return tool_error(ENDED.to_owned());
            }
            let Some(step) = self.recorder.next_step() else {
                return tool_error(format!(
                    "over {MAX_RECORDED_CALLS} calls in this attempt; no more calls are served"
                ));
            };
            let (tool, kept) = (name.to_owned(), args.value().clone());
            // Started under the lock, so that it cannot end before it is listed.
            let task =
                tokio::spawn(async move { me.run(step, &tool, args, started_at, clock).await });
            flight.calls.insert(
                step,
                Running {
                    tool: name.to_owned(),
                    args: kept,
                    started_at,
                    clock,
                    task: task.abort_handle(),
                },
            );
            task
        };
        task.await
            .unwrap_or_else(|_| tool_error(CUT_OFF.to_owned()))
    }

    /// Call number `step`, answered and recorded.
    async fn run(
        &self,
        step: usize,
        name: &str,
        args: CallArgs,
        started_at: jiff::Timestamp,
        clock: Instant,
    ) -> ToolReply {
        let (reply, applied) = self.decide(step, name, &args).await;
        let (result, error) = match &reply {
            ToolReply::Result {
                value,
                is_error: false,
            } => (Some(value.clone()), None),
            ToolReply::Result {
                value,
                is_error: true,
            } => (
                None,
                Some(match value.get("error").and_then(Value::as_str) {
                    Some(message) => message.to_owned(),
                    None => value.to_string(),
                }),
            ),
            ToolReply::Text {
                text,
                is_error: false,
            } => (Some(Value::String(text.clone())), None),
            ToolReply::Text {
                text,
                is_error: true,
            } => (None, Some(text.clone())),
            ToolReply::Refused(message) => (None, Some(message.clone())),
        };
        self.ended(
            step,
            RecordedCall {
                tool: name.to_owned(),
                args: args.into_value(),
                result,
                error,
                faults: applied.iter().map(|f| f.name().to_owned()).collect(),
                started_at,
                duration: clock.elapsed(),
            },
        );
        reply
    }

    /// The reply to call number `step`, and the faults applied to it, in order.
    async fn decide(
        &self,
        step: usize,
        name: &str,
        call_args: &CallArgs,
    ) -> (ToolReply, Vec<FaultKind>) {
        let args = call_args.value();
        let Some(index) = self.tools.specs.iter().position(|t| t.name == name) else {
            let served: Vec<&str> = self.tools.specs.iter().map(|t| t.name.as_str()).collect();
            return (
                ToolReply::Refused(format!(
                    "unknown tool `{name}`; this task serves: {}",
                    served.join(", ")
                )),
                Vec::new(),
            );
        };
        if let Some(cap) = self.step_cap
            && step as u64 > cap
        {
            return (
                tool_error(format!(
                    "call {step} is over the task's step cap of {cap}; no more calls are served"
                )),
                Vec::new(),
            );
        }
        if let Some(violation) = self.tools.schemas[index].violation(args) {
            return (
                tool_error(format!(
                    "arguments do not match the input schema of `{name}`: {violation}"
                )),
                Vec::new(),
            );
        }
        let call_number = {
            let mut counts = self
                .calls_per_tool
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let count = counts.entry(name.to_owned()).or_default();
            *count = count.saturating_add(1);
            *count
        };
        let applied: Vec<FaultKind> = self
            .faults
            .decide(name, call_number)
            .into_iter()
            .cloned()
            .collect();
        self.fired
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(applied.iter().map(|fault| FaultFired {
                step: step as u32,
                tool: name.to_owned(),
                kind: fault.name().to_owned(),
            }));
        if let Some(reply) = faults::before(&applied).await {
            return (faults::after(&applied, reply), applied);
        }
        let tool = &self.tools.specs[index];
        let reply = match &tool.backend {
            ToolBackend::Responses(responses) => match canned_result(responses, args) {
                Some(value) => ToolReply::Result {
                    value: value.clone(),
                    is_error: false,
                },
                None => tool_error(format!(
                    "no response of `{name}` matches these arguments, and it has no default"
                )),
            },
            ToolBackend::Script(backend) => {
                script::call(backend, name, call_args.text(), &self.caller()).await
            }
            ToolBackend::Server(backend) => {
                let caller = self.caller();
                self.servers
                    .call(backend, name, call_args.text(), &caller)
                    .await
            }
            ToolBackend::User(_) => match &self.user {
                Some(user) => user.answer(args, &self.caller()).await,
                None => tool_error("the task has no simulated user".to_owned()),
            },
        };
        (faults::after(&applied, reply), applied)
    }

    /// The `calls:` faults whose call never came: call once the attempt is closed.
    pub fn faults_missed(&self) -> Vec<FaultMissed> {
        let counts = self
            .calls_per_tool
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        self.faults.missed(&counts)
    }
}

impl ToolService for AttemptTools {
    fn tools(&self) -> &[ToolSpec] {
        &self.tools.specs
    }

    fn call<'a>(&'a self, name: &'a str, args: Option<CallArgs>) -> Reply<'a> {
        Box::pin(self.answer(name, args))
    }
}

/// The answer to a call that arrives after its attempt ended: nothing runs.
const ENDED: &str = "the attempt has ended; no more calls are served";

#[cfg(test)]
mod tests {
    use super::*;
    use proctor_core::faults::FaultSpec;
    use proctor_core::task::Suite;
    use serde_json::json;

    fn task(dir: &std::path::Path) -> Task {
        let path = dir.join("tasks.yaml");
        std::fs::write(
            &path,
            "- id: t\n  input: x\n  expected: y\n  step_cap: 5\n  tools:\n    - name: get_order\n      input_schema: {type: object, properties: {order_id: {type: string}}}\n      responses:\n        - result: {days: 12}\n",
        )
        .unwrap();
        Suite::load(&path).unwrap().tasks.remove(0)
    }

    #[tokio::test]
    async fn faults_of_the_plan_fire_on_their_calls_and_are_recorded_with_their_step() {
        let dir = tempfile::tempdir().unwrap();
        let task = task(dir.path());
        let faults: Vec<FaultSpec> = serde_json::from_value(json!([
            {"tool": "get_*", "kind": "error", "calls": [2], "message": "upstream unavailable"},
            {"tool": "get_order", "kind": "inject", "calls": [3], "payload": "IGNORE PREVIOUS"},
        ]))
        .unwrap();
        let tools = AttemptTools::new(
            TaskTools::of(&task, None).unwrap().unwrap(),
            &task,
            0,
            (dir.path().to_owned(), None),
            FaultPlan::new(&faults, 7),
            ContainedCommands::plain(dir.path().to_owned()),
        );
        let args = || Some(CallArgs::new(json!({"order_id": "A1"}), None));
        let ok = ToolReply::Result {
            value: json!({"days": 12}),
            is_error: false,
        };
        assert_eq!(tools.call("get_order", args()).await, ok);
        assert_eq!(
            tools.call("lookup", args()).await,
            ToolReply::Refused("unknown tool `lookup`; this task serves: get_order".into())
        );
        assert_eq!(
            tools.call("get_order", args()).await,
            tool_error("upstream unavailable".into())
        );
        assert_eq!(
            tools.call("get_order", args()).await,
            ToolReply::Text {
                text: "{\"days\":12}\nIGNORE PREVIOUS".into(),
                is_error: false
            }
        );
        assert_eq!(
            tools
                .call("get_order", Some(CallArgs::new(json!({"order_id": 7}), None)))
                .await,
            tool_error(
                "arguments do not match the input schema of `get_order`: 7 is not of type \"string\" at /order_id".into()
            )
        );
        assert_eq!(
            tools.call("get_order", args()).await,
            tool_error("call 6 is over the task's step cap of 5; no more calls are served".into())
        );
        let fired = tools.fired.lock().unwrap().clone();
        assert_eq!(
            fired,
            [
                FaultFired {
                    step: 3,
                    tool: "get_order".into(),
                    kind: "error".into()
                },
                FaultFired {
                    step: 4,
                    tool: "get_order".into(),
                    kind: "inject".into()
                },
            ]
        );
        let (calls, dropped) = tools.recorder.take();
        let faults: Vec<String> = calls.iter().map(|c| c.faults.join("+")).collect();
        assert_eq!(faults, ["", "", "error", "inject", "", ""]);
        assert_eq!(calls[2].error.as_deref(), Some("upstream unavailable"));
        assert_eq!(dropped, 0);
    }
}
