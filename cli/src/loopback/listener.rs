//! The loopback HTTP/1 listener, bounded by count and time so that no client can use up
//! proctor's file descriptors:
//!
//! - at most [`Limits::connections`] are open at once: past it, a new connection closes the
//!   one idle the longest (one with no request being answered), or is closed itself when
//!   every open one is answering a request;
//! - a connection with no byte either way for [`IDLE_TIMEOUT`], while none of its requests is
//!   being answered, is closed;
//! - a request head may be at most [`Limits::head_bytes`] and take at most
//!   [`Limits::head_timeout`] to arrive, when the server sets them.
//!
//! [`Listener::settle`] is the barrier the tool server needs once an agent has exited: it
//! returns when every byte that reached the listener before it was called has been read and
//! every whole request head in those bytes handed to the handler.

use super::connection::{Activity, Conn, InService, Tracked, idle};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Connections open at once per listener, unless its [`Limits`] say otherwise.
pub const MAX_CONNECTIONS: usize = 256;
/// How long a connection may stay silent while none of its requests is being answered.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(10);

/// What one server allows a client, past the bounds every listener keeps.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Connections open at once.
    pub connections: usize,
    /// The largest request head (line and headers); hyper's own bound when `None`.
    pub head_bytes: Option<usize>,
    /// How long a request head may take to arrive, counted from when the connection
    /// waits for one; only [`IDLE_TIMEOUT`] when `None`.
    pub head_timeout: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections: MAX_CONNECTIONS,
            head_bytes: None,
            head_timeout: None,
        }
    }
}

/// Binds `port` (0: any free one) on 127.0.0.1, the only address proctor serves on.
pub async fn bind(port: u16) -> io::Result<TcpListener> {
    TcpListener::bind(("127.0.0.1", port)).await
}

/// A running listener; it stops accepting when dropped.
#[derive(Debug)]
pub struct Listener {
    pub address: SocketAddr,
    shared: Arc<Shared>,
    accepting: JoinHandle<()>,
}

#[derive(Debug)]
struct Shared {
    limits: Limits,
    activity: Arc<Activity>,
    open: Mutex<BTreeMap<u64, Arc<Conn>>>,
    next_id: AtomicU64,
    /// The local ports of [`Listener::settle`]'s own connections, and where to say which
    /// connection number each was accepted at.
    /// Keyed by the whole address: an agent binding another loopback address with the
    /// same port must not pass for the barrier's own connection.
    sentinels: Mutex<HashMap<SocketAddr, oneshot::Sender<u64>>>,
    /// Connections closed at once because every open one was answering a request.
    refused: AtomicU64,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Listener {
    /// Listens on a random loopback port with the default [`Limits`] and answers every
    /// request with `handler`, which is called as soon as a request's head is read (the
    /// body is the handler's to read).
    pub async fn start<H, F, B>(handler: H) -> io::Result<Listener>
    where
        H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
        F: Future<Output = Response<B>> + Send + 'static,
        B: hyper::body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        Listener::serve(bind(0).await?, Limits::default(), handler)
    }

    /// Answers every request on `listener` (made by [`bind`]) with `handler`, within
    /// `limits`, on the current tokio runtime.
    pub fn serve<H, F, B>(listener: TcpListener, limits: Limits, handler: H) -> io::Result<Listener>
    where
        H: Fn(Request<Incoming>) -> F + Clone + Send + Sync + 'static,
        F: Future<Output = Response<B>> + Send + 'static,
        B: hyper::body::Body + Send + 'static,
        B::Data: Send,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let address = listener.local_addr()?;
        let shared = Arc::new(Shared {
            limits,
            activity: Arc::new(Activity::new()),
            open: Mutex::default(),
            next_id: AtomicU64::new(0),
            sentinels: Mutex::default(),
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
        let activity = &self.shared.activity;
        activity.settling.fetch_add(1, Ordering::SeqCst);
        let settled = tokio::time::timeout(within, self.barrier()).await;
        activity.settling.fetch_sub(1, Ordering::SeqCst);
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
            let changed = shared.activity.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let waiting = lock(&shared.open).range(..bound).any(|(id, conn)| {
                conn.idle()
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
        let conn = Arc::new(Conn::new(id, &shared.activity));
        if !make_room(&shared) {
            shared.refused.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        lock(&shared.open).insert(id, conn.clone());
        let _ = stream.set_nodelay(true);
        tokio::spawn(serve(stream, conn, shared.clone(), handler.clone()));
    }
}

/// Closes the idlest connection when the listener is full; false when every open one is
/// answering a request, and the new one must go.
fn make_room(shared: &Shared) -> bool {
    let mut open = lock(&shared.open);
    if open.len() < shared.limits.connections {
        return true;
    }
    let idlest = open
        .values()
        .filter(|c| c.idle())
        .min_by_key(|c| c.last_active_ms.load(Ordering::SeqCst))
        .cloned();
    match idlest {
        Some(idlest) => {
            open.remove(&idlest.id);
            idlest.close.notify_one();
            true
        }
        None => false,
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
    let activity = shared.activity.clone();
    let service = {
        let (conn, activity) = (conn.clone(), activity.clone());
        service_fn(move |request| {
            let guard = InService::new(conn.clone(), activity.clone());
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
        activity: activity.clone(),
    });
    // Half-closed connections are answered: a client that sends its request and shuts its
    // side still gets the request handled whole.
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(shared.limits.head_timeout)
        .half_close(true);
    if let Some(head_bytes) = shared.limits.head_bytes {
        builder.max_buf_size(head_bytes);
    }
    let serving = builder.serve_connection(io, service);
    tokio::select! {
        _ = serving => {}
        _ = conn.close.notified() => {}
        _ = idle(&conn, &activity, IDLE_TIMEOUT) => {}
    }
    lock(&shared.open).remove(&conn.id);
    activity.wake();
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use http_body_util::Full;
    use std::sync::atomic::AtomicUsize;
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

    #[tokio::test]
    async fn a_head_over_its_size_is_refused_and_one_too_slow_is_closed() {
        let limits = Limits {
            connections: 4,
            head_bytes: Some(1 << 10),
            head_timeout: Some(Duration::from_millis(200)),
        };
        let listener = Listener::serve(bind(0).await.unwrap(), limits, |_request| async {
            Response::new(Full::new(Bytes::from_static(b"ok")))
        })
        .unwrap();
        let mut large = TcpStream::connect(listener.address).await.unwrap();
        let head = format!(
            "GET / HTTP/1.1\r\nhost: x\r\nx-pad: {}\r\n\r\n",
            "a".repeat(4 << 10)
        );
        let _ = large.write_all(head.as_bytes()).await;
        let mut answer = Vec::new();
        let _ = large.read_to_end(&mut answer).await;
        let answer = String::from_utf8_lossy(&answer);
        assert!(
            answer.is_empty() || answer.starts_with("HTTP/1.1 431"),
            "{answer}"
        );
        let mut slow = TcpStream::connect(listener.address).await.unwrap();
        slow.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(Duration::from_secs(5), slow.read(&mut byte)).await;
        assert!(matches!(read, Ok(Ok(0) | Err(_))), "{read:?}");
    }
}
