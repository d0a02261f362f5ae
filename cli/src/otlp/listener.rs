//! proctor's loopback HTTP/1 listeners (the OTLP receiver and the tool server), bounded by
//! count and time so that no agent can use up proctor's file descriptors:
//!
//! - at most [`MAX_CONNECTIONS`] are open at once: past it, a new connection closes the one
//!   idle the longest (one with no request being answered), or is closed itself when every
//!   open one is answering a request;
//! - a connection with no byte either way for [`IDLE_TIMEOUT`], while none of its requests is
//!   being answered, is closed.
//!
//! [`Listener::settle`] is the barrier the tool server needs once an agent has exited: it
//! returns when every byte that reached the listener before it was called has been read and
//! every whole request head in those bytes handed to the handler.

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{Notify, Semaphore, SemaphorePermit, oneshot};
use tokio::task::JoinHandle;

/// Connections open at once per listener.
pub const MAX_CONNECTIONS: usize = 256;
/// How long a connection may stay silent while none of its requests is being answered.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a request's body may take to arrive once its head has: a request being read
/// counts as in service (it is never closed as idle), so without this a client trickling
/// its body would hold a connection, and the memory it claimed, for as long as it liked.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// A running listener; it stops accepting when dropped.
#[derive(Debug)]
pub struct Listener {
    pub address: SocketAddr,
    shared: Arc<Shared>,
    accepting: JoinHandle<()>,
}

#[derive(Debug)]
struct Shared {
    started: Instant,
    open: Mutex<BTreeMap<u64, Arc<Conn>>>,
    next_id: AtomicU64,
    /// The local ports of [`Listener::settle`]'s own connections, and where to say which
    /// connection number each was accepted at.
    /// Keyed by the whole address: an agent binding another loopback address with the
    /// same port must not pass for the barrier's own connection.
    sentinels: Mutex<HashMap<SocketAddr, oneshot::Sender<u64>>>,
    /// Barriers waiting: only then do reads wake [`Shared::changed`].
    settling: AtomicUsize,
    changed: Notify,
    /// Connections closed at once because every open one was answering a request.
    refused: AtomicU64,
}

#[derive(Debug)]
struct Conn {
    id: u64,
    last_active_ms: AtomicU64,
    /// Reads that found nothing left to read (or the end): all bytes before were read.
    drained: AtomicU64,
    in_service: AtomicUsize,
    close: Notify,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn wake(&self) {
        if self.settling.load(Ordering::SeqCst) > 0 {
            self.changed.notify_waiters();
        }
    }
}

impl Listener {
    /// Listens on a random loopback port and answers every request with `handler`, which is
    /// called as soon as a request's head is read (the body is the handler's to read).
    pub async fn start<H, F, B>(handler: H) -> io::Result<Listener>
    where
        H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
        F: Future<Output = Response<B>> + Send + 'static,
        B: hyper::body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let address = listener.local_addr()?;
        let shared = Arc::new(Shared {
            started: Instant::now(),
            open: Mutex::default(),
            next_id: AtomicU64::new(0),
            sentinels: Mutex::default(),
            settling: AtomicUsize::new(0),
            changed: Notify::new(),
            refused: AtomicU64::new(0),
        });
        let accepting = tokio::spawn(accept_all(listener, shared.clone(), handler));
        Ok(Listener {
            address,
            shared,
            accepting,
        })
    }

    /// Connections open now.
    #[cfg(test)]
    pub fn open(&self) -> usize {
        lock(&self.shared.open).len()
    }

    /// Returns once every byte that reached the listener before this call has been read and
    /// every whole request head in them handed to the handler, or after `within`; false
    /// when `within` ended first.
    pub async fn settle(&self, within: Duration) -> bool {
        let shared = &self.shared;
        shared.settling.fetch_add(1, Ordering::SeqCst);
        let settled = tokio::time::timeout(within, self.barrier()).await;
        shared.settling.fetch_sub(1, Ordering::SeqCst);
        matches!(settled, Ok(Ok(())))
    }

    async fn barrier(&self) -> io::Result<()> {
        let shared = &self.shared;
        let before: HashMap<u64, u64> = lock(&shared.open)
            .iter()
            .map(|(id, conn)| (*id, conn.drained.load(Ordering::SeqCst)))
            .collect();
        // A connection of our own, made now, is accepted after every connection made before
        // it (the backlog is first in, first out): its number bounds the ones to wait for.
        let socket = TcpSocket::new_v4()?;
        socket.bind(SocketAddr::from(([127, 0, 0, 1], 0)))?;
        let own = socket.local_addr()?;
        let (told, accepted_at) = oneshot::channel();
        lock(&shared.sentinels).insert(own, told);
        let sentinel = socket.connect(self.address).await;
        let bound = match sentinel {
            Ok(_stream) => accepted_at.await.map_err(io::Error::other)?,
            Err(error) => {
                lock(&shared.sentinels).remove(&own);
                return Err(error);
            }
        };
        loop {
            let changed = shared.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let waiting = lock(&shared.open).range(..bound).any(|(id, conn)| {
                conn.in_service.load(Ordering::SeqCst) == 0
                    && conn.drained.load(Ordering::SeqCst) <= before.get(id).copied().unwrap_or(0)
            });
            if !waiting {
                return Ok(());
            }
            // A read that finds the socket empty wakes this; a tick covers the rest.
            let _ = tokio::time::timeout(Duration::from_millis(20), changed).await;
        }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

async fn accept_all<H, F, B>(listener: TcpListener, shared: Arc<Shared>, handler: H)
where
    H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response<B>> + Send + 'static,
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(_) => {
                // Out of descriptors, say: try again later rather than spin.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if let Some(told) = lock(&shared.sentinels).remove(&peer) {
            let _ = told.send(shared.next_id.load(Ordering::SeqCst));
            continue;
        }
        let id = shared.next_id.fetch_add(1, Ordering::SeqCst);
        let conn = Arc::new(Conn {
            id,
            last_active_ms: AtomicU64::new(shared.now_ms()),
            drained: AtomicU64::new(0),
            in_service: AtomicUsize::new(0),
            close: Notify::new(),
        });
        {
            let mut open = lock(&shared.open);
            if open.len() >= MAX_CONNECTIONS {
                let idlest = open
                    .values()
                    .filter(|c| c.in_service.load(Ordering::SeqCst) == 0)
                    .min_by_key(|c| c.last_active_ms.load(Ordering::SeqCst))
                    .cloned();
                match idlest {
                    Some(idlest) => {
                        open.remove(&idlest.id);
                        idlest.close.notify_one();
                    }
                    None => {
                        shared.refused.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                }
            }
            open.insert(id, conn.clone());
        }
        let _ = stream.set_nodelay(true);
        tokio::spawn(serve(stream, conn, shared.clone(), handler.clone()));
    }
}

async fn serve<H, F, B>(stream: TcpStream, conn: Arc<Conn>, shared: Arc<Shared>, handler: H)
where
    H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response<B>> + Send + 'static,
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let service = {
        let (conn, shared) = (conn.clone(), shared.clone());
        service_fn(move |request| {
            let guard = InService::new(conn.clone(), shared.clone());
            let answer = handler(request);
            async move {
                let response = answer.await;
                drop(guard);
                Ok::<_, Infallible>(response)
            }
        })
    };
    let io = TokioIo::new(Tracked {
        stream,
        conn: conn.clone(),
        shared: shared.clone(),
    });
    // Half-closed connections are answered: a client that sends its request and shuts its
    // side still gets the request handled whole.
    let serving = http1::Builder::new()
        .half_close(true)
        .serve_connection(io, service);
    tokio::select! {
        _ = serving => {}
        _ = conn.close.notified() => {}
        _ = idle(&conn, &shared) => {}
    }
    lock(&shared.open).remove(&conn.id);
    shared.wake();
}

/// Ends when the connection has been silent for [`IDLE_TIMEOUT`] with nothing in service.
async fn idle(conn: &Conn, shared: &Shared) {
    let timeout = IDLE_TIMEOUT.as_millis() as u64;
    loop {
        let due = conn.last_active_ms.load(Ordering::SeqCst) + timeout;
        let now = shared.now_ms();
        if now >= due && conn.in_service.load(Ordering::SeqCst) == 0 {
            return;
        }
        let wait = if now >= due { timeout } else { due - now };
        tokio::time::sleep(Duration::from_millis(wait)).await;
    }
}

/// A request being answered; the connection counts as active until it is.
struct InService {
    conn: Arc<Conn>,
    shared: Arc<Shared>,
}

impl InService {
    fn new(conn: Arc<Conn>, shared: Arc<Shared>) -> InService {
        conn.in_service.fetch_add(1, Ordering::SeqCst);
        InService { conn, shared }
    }
}

impl Drop for InService {
    fn drop(&mut self) {
        self.conn
            .last_active_ms
            .store(self.shared.now_ms(), Ordering::SeqCst);
        self.conn.in_service.fetch_sub(1, Ordering::SeqCst);
        self.shared.wake();
    }
}

/// The connection's stream, noting when bytes move and when a read finds none left.
struct Tracked {
    stream: TcpStream,
    conn: Arc<Conn>,
    shared: Arc<Shared>,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        match &polled {
            Poll::Ready(Ok(())) if buf.filled().len() > before => {
                let now = self.shared.now_ms();
                self.conn.last_active_ms.store(now, Ordering::SeqCst);
            }
            _ => {
                self.conn.drained.fetch_add(1, Ordering::SeqCst);
                self.shared.wake();
            }
        }
        polled
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = polled
            && n > 0
        {
            let now = self.shared.now_ms();
            self.conn.last_active_ms.store(now, Ordering::SeqCst);
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Reads a request body whole, up to `limit` bytes, holding `limit` bytes of `memory`
/// (the listener's budget for bodies being held), all within [`BODY_TIMEOUT`] of the
/// head: waiting for a share of the budget counts too, so requests stalled in a queue
/// are answered within the same bound. `Err(None)` when the body is longer than `limit`,
/// `Err(Some(reason))` when it cannot be read in time. The share is held until the
/// returned permit is dropped.
pub async fn read_body(
    body: Incoming,
    limit: usize,
    memory: &Semaphore,
) -> Result<(bytes::Bytes, SemaphorePermit<'_>), Option<String>> {
    let deadline = tokio::time::Instant::now() + BODY_TIMEOUT;
    let late = || {
        Some(format!(
            "the body did not arrive within {} s",
            BODY_TIMEOUT.as_secs()
        ))
    };
    let share = u32::try_from(limit.max(1)).unwrap_or(u32::MAX);
    let permit = match tokio::time::timeout_at(deadline, memory.acquire_many(share)).await {
        Ok(Ok(permit)) => permit,
        Ok(Err(_)) => return Err(Some("shutting down".to_owned())),
        Err(_) => return Err(late()),
    };
    let reading = http_body_util::Limited::new(body, limit).collect();
    match tokio::time::timeout_at(deadline, reading).await {
        Ok(Ok(body)) => Ok((body.to_bytes(), permit)),
        Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => Err(None),
        Ok(Err(error)) => Err(Some(error.to_string())),
        Err(_) => Err(late()),
    }
}

/// A size in MiB with one decimal, as limit reasons show it.
pub fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use http_body_util::Full;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn past_the_cap_the_idlest_connection_is_closed_and_the_barrier_sees_every_head() {
        let seen = Arc::new(AtomicUsize::new(0));
        let counted = seen.clone();
        let listener = Listener::start(move |_request: Request<Incoming>| {
            counted.fetch_add(1, Ordering::SeqCst);
            async { Response::new(Full::new(Bytes::from_static(b"ok"))) }
        })
        .await
        .unwrap();
        let mut idle = Vec::new();
        for _ in 0..MAX_CONNECTIONS + 20 {
            idle.push(TcpStream::connect(listener.address).await.unwrap());
        }
        // A request sent, the sender gone at once: the barrier waits until it was read.
        let mut last = TcpStream::connect(listener.address).await.unwrap();
        last.write_all(b"GET / HTTP/1.1\r\nhost: x\r\n\r\n")
            .await
            .unwrap();
        drop(last);
        assert!(listener.settle(Duration::from_secs(30)).await);
        assert_eq!(seen.load(Ordering::SeqCst), 1);
        assert!(listener.open() <= MAX_CONNECTIONS);
        // The first idle connections were closed to make room.
        let mut byte = [0u8; 1];
        let read = idle[0].read(&mut byte).await;
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    }
}
