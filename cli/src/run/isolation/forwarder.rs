//! The agent's side of the way into a `network: none` namespace (docs/agent-protocol.md). bubblewrap
//! starts `proctor __forward --route 127.0.0.1:PORT=SOCKET... -- PROGRAM ARGS...` inside
//! the namespace: it binds each endpoint's port on the namespace's own loopback, leaves
//! a process behind that relays every connection to the endpoint's Unix socket (see
//! `relay`), and replaces itself with the agent. The agent uses the same
//! `OTEL_EXPORTER_OTLP_ENDPOINT` or tool URL as on the host's network.
//!
//! The ports are listening before the agent starts, so its first export never races the
//! forwarder. The forwarder lives in the agent's PID namespace and ends with it; it is
//! a grandchild, reparented to the namespace's init, so an agent that waits for all its
//! children never waits for it. An agent that kills it loses its own spans, nothing more.

use super::relay::{MAX_CONNECTIONS, Target, relay_all};
use anyhow::{Context, bail};
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// The first argument that makes proctor a forwarder.
pub const FORWARD_COMMAND: &str = "__forward";

/// The words after the program that start `program args` behind a forwarder of `routes`.
pub fn arguments(routes: &[(SocketAddr, PathBuf)], program: &str, args: &[String]) -> Vec<String> {
    let mut words = vec![FORWARD_COMMAND.to_owned()];
    for (endpoint, socket) in routes {
        words.push("--route".to_owned());
        words.push(format!("{endpoint}={}", socket.display()));
    }
    words.push("--".to_owned());
    words.push(program.to_owned());
    words.extend(args.iter().cloned());
    words
}

/// What `__forward` was asked to be.
enum Role {
    /// Start the forwarder, then become `command` (the agent).
    Agent(Vec<String>),
    /// Start the forwarder and exit, so that it is reparented to the namespace's init.
    Detach,
    /// Listen, say so on stdout, and relay until the namespace ends.
    Serve,
}

/// The line the forwarder prints once every port is listening.
const READY: &str = "ready";

/// `__forward`'s main: returns only when it failed.
pub fn enter(args: &[String]) -> anyhow::Result<()> {
    let mut routes = Vec::new();
    let mut words = args.iter();
    let mut role = None;
    loop {
        match words.next().map(String::as_str) {
            Some("--route") => {
                let route = words.next().context("--route needs a value")?;
                routes.push(route.clone());
            }
            Some("--detach") => role = Some(Role::Detach),
            Some("--serve") => role = Some(Role::Serve),
            Some("--") => break,
            Some(other) => bail!("{FORWARD_COMMAND}: unknown option {other}"),
            None if role.is_some() => break,
            None => bail!("{FORWARD_COMMAND}: no command after --"),
        }
    }
    match role.unwrap_or_else(|| Role::Agent(words.cloned().collect())) {
        Role::Agent(command) => start_then_become(&routes, &command),
        Role::Detach => {
            // The forwarder inherits this process's stdout: the pipe `start_then_become` reads.
            again("--serve", &routes)?
                .stderr(std::process::Stdio::null())
                .spawn()
                .context("cannot start the forwarder")?;
            std::process::exit(0);
        }
        Role::Serve => serve(&routes),
    }
}

/// proctor as `__forward ROLE --route...`, reading nothing.
fn again(role: &str, routes: &[String]) -> anyhow::Result<std::process::Command> {
    let mut command = std::process::Command::new(std::env::current_exe()?);
    command
        .arg(FORWARD_COMMAND)
        .arg(role)
        .args(routes.iter().flat_map(|r| ["--route", r]))
        .stdin(std::process::Stdio::null());
    Ok(command)
}

/// Starts the forwarder (through a process that exits at once, so that it is not the
/// agent's child), waits until it listens, and replaces this process with `command`.
fn start_then_become(routes: &[String], command: &[String]) -> anyhow::Result<()> {
    let Some((program, rest)) = command.split_first() else {
        bail!("{FORWARD_COMMAND}: no command after --");
    };
    let mut detach = again("--detach", routes)?
        .stdout(std::process::Stdio::piped())
        .spawn()
        .context("cannot start the forwarder")?;
    let mut said = String::new();
    if let Some(stdout) = detach.stdout.take() {
        // One short line, or nothing when the forwarder failed: bounded either way.
        let mut stdout = std::io::BufReader::new(std::io::Read::take(stdout, 4096));
        std::io::BufRead::read_line(&mut stdout, &mut said).context("the forwarder")?;
    }
    detach.wait().context("the forwarder")?;
    if said.trim_end() != READY {
        bail!(
            "the forwarder into the namespace failed: {}",
            said.trim_end()
        );
    }
    let error = std::process::Command::new(program).args(rest).exec();
    Err(error).with_context(|| format!("cannot start {program}"))
}

/// Listens on every route's address, says so, and relays connections until the
/// namespace ends. Holds none of the agent's output pipes once it has said so.
fn serve(routes: &[String]) -> anyhow::Result<()> {
    let mut listeners = Vec::new();
    let mut failure = None;
    for route in routes {
        match listen(route) {
            Ok(listener) => listeners.push(listener),
            Err(error) => {
                failure = Some(format!("{error:#}"));
                break;
            }
        }
    }
    println!("{}", failure.as_deref().unwrap_or(READY));
    if let Ok(null) = std::fs::File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        let _ = nix::unistd::dup2_stdout(&null);
    }
    if let Some(failure) = failure {
        bail!(failure);
    }
    let _ = nix::sys::prctl::set_dumpable(false);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
        let mut accepting = Vec::new();
        for (listener, socket) in listeners {
            listener.set_nonblocking(true)?;
            let listener = TcpListener::from_std(listener)?;
            accepting.push(tokio::spawn(relay_all(
                listener,
                Target::Unix(socket),
                permits.clone(),
            )));
        }
        for task in accepting {
            let _ = task.await;
        }
        Ok(())
    })
}

/// `ADDRESS=SOCKET`: a listener on ADDRESS, and the socket its connections go to.
fn listen(route: &str) -> anyhow::Result<(std::net::TcpListener, PathBuf)> {
    let (endpoint, socket) = route
        .split_once('=')
        .with_context(|| format!("--route {route}: expected ADDRESS=SOCKET"))?;
    let endpoint: SocketAddr = endpoint
        .parse()
        .with_context(|| format!("--route {route}: not an address"))?;
    let listener = std::net::TcpListener::bind(endpoint)
        .with_context(|| format!("cannot listen on {endpoint} in the namespace"))?;
    Ok((listener, PathBuf::from(socket)))
}
