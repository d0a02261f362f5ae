//! proctor's side of the way into a `network: none` namespace (docs/agent-protocol.md): for each of
//! proctor's own loopback endpoints (the OTLP receiver, the tool server) an attempt gets
//! a Unix socket in a private folder of its own, bound read-only into its namespace,
//! where `forwarder` relays the agent's TCP connections. Each socket leads to its one
//! endpoint and nowhere else, so the agent reaches nothing through it that proctor did
//! not register, and whatever it does to the forwarder stays inside its namespace.

use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use tokio::sync::Semaphore;

/// Connections one attempt may have open through its sockets at once; more wait.
pub const MAX_CONNECTIONS: usize = 64;
/// Bytes buffered per direction of a relayed connection.
const BUFFER: usize = 16 << 10;
/// The longest path a Unix socket can be bound at (`sun_path` holds 108 bytes).
const SOCKET_PATH_MAX: usize = 107;

/// One attempt's relays: its socket folder and the tasks accepting on its sockets,
/// which stop (and the folder goes) when this is dropped, after the attempt.
#[derive(Debug)]
pub struct Relays {
    folder: PathBuf,
    routes: Vec<(SocketAddr, PathBuf)>,
    accepting: Vec<tokio::task::JoinHandle<()>>,
}

impl Relays {
    /// Listens on a socket per endpoint in `folder`, made here with mode 0700. Must be
    /// called within the run's async runtime.
    pub fn start(folder: &Path, endpoints: &[SocketAddr]) -> io::Result<Relays> {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new().mode(0o700).create(folder)?;
        let mut relays = Relays {
            folder: folder.to_owned(),
            routes: Vec::new(),
            accepting: Vec::new(),
        };
        let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
        for (index, &endpoint) in endpoints.iter().enumerate() {
            let socket = folder.join(format!("{index}.sock"));
            if socket.as_os_str().len() > SOCKET_PATH_MAX {
                return Err(io::Error::other(format!(
                    "{}: too long for a Unix socket (at most {SOCKET_PATH_MAX} bytes): set TMPDIR to a shorter folder",
                    socket.display()
                )));
            }
            let listener = UnixListener::bind(&socket)?;
            relays.accepting.push(tokio::spawn(relay_all(
                listener,
                Target::Tcp(endpoint),
                permits.clone(),
            )));
            relays.routes.push((endpoint, socket));
        }
        Ok(relays)
    }

    /// The folder to bind into the namespace (read-only: connecting needs no write).
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// Each endpoint with the socket that leads to it, for the forwarder's arguments.
    pub fn routes(&self) -> &[(SocketAddr, PathBuf)] {
        &self.routes
    }
}

impl Drop for Relays {
    fn drop(&mut self) {
        for task in &self.accepting {
            task.abort();
        }
        // Connections still open end on their own: the namespace that held their other
        // end is gone.
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// Where relayed connections go.
#[derive(Debug, Clone)]
pub enum Target {
    /// proctor's endpoint on the host's loopback.
    Tcp(SocketAddr),
    /// The attempt's socket, seen from inside its namespace.
    Unix(PathBuf),
}

/// A listener whose connections are relayed.
pub trait Accept: Send + 'static {
    type Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static;
    fn next(&self) -> impl Future<Output = io::Result<Self::Stream>> + Send;
}

impl Accept for UnixListener {
    type Stream = UnixStream;
    async fn next(&self) -> io::Result<UnixStream> {
        Ok(self.accept().await?.0)
    }
}

impl Accept for TcpListener {
    type Stream = TcpStream;
    async fn next(&self) -> io::Result<TcpStream> {
        let (stream, _) = self.accept().await?;
        stream.set_nodelay(true)?;
        Ok(stream)
    }
}

/// Relays every connection `listener` accepts to `target`, while `permits` lasts
/// (one per open connection; more wait in the listener's backlog).
pub async fn relay_all(listener: impl Accept, target: Target, permits: Arc<Semaphore>) {
    loop {
        let Ok(permit) = permits.clone().acquire_owned().await else {
            return;
        };
        let incoming = match listener.next().await {
            Ok(incoming) => incoming,
            Err(_) => {
                // Out of descriptors, say: try again later rather than spin.
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let target = target.clone();
        tokio::spawn(async move {
            let _ = relay(incoming, &target).await;
            drop(permit);
        });
    }
}

/// Copies both ways between a connection and `target` until either side ends.
async fn relay(
    mut incoming: impl AsyncRead + AsyncWrite + Unpin,
    target: &Target,
) -> io::Result<()> {
    match target {
        Target::Tcp(endpoint) => {
            let mut outgoing = TcpStream::connect(endpoint).await?;
            outgoing.set_nodelay(true)?;
            copy_both_ways(&mut incoming, &mut outgoing).await
        }
        Target::Unix(socket) => {
            let mut outgoing = UnixStream::connect(socket).await?;
            copy_both_ways(&mut incoming, &mut outgoing).await
        }
    }
}

async fn copy_both_ways(
    a: &mut (impl AsyncRead + AsyncWrite + Unpin),
    b: &mut (impl AsyncRead + AsyncWrite + Unpin),
) -> io::Result<()> {
    tokio::io::copy_bidirectional_with_sizes(a, b, BUFFER, BUFFER).await?;
    Ok(())
}
