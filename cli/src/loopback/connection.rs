//! One connection's bookkeeping, which the listener's bounds read: when bytes last moved
//! either way, how many of its requests are being answered, and how often a read found
//! nothing left (the barrier of [`super::listener::Listener::settle`] counts on it).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;

/// What every connection of a listener shares: its clock, and whom to wake when a
/// connection reads or ends.
#[derive(Debug)]
pub struct Activity {
    started: Instant,
    /// Barriers waiting: only then do reads wake [`Activity::changed`].
    pub settling: AtomicUsize,
    pub changed: Notify,
}

impl Activity {
    pub fn new() -> Activity {
        Activity {
            started: Instant::now(),
            settling: AtomicUsize::new(0),
            changed: Notify::new(),
        }
    }

    pub fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    pub fn wake(&self) {
        if self.settling.load(Ordering::SeqCst) > 0 {
            self.changed.notify_waiters();
        }
    }
}

#[derive(Debug)]
pub struct Conn {
    pub id: u64,
    pub last_active_ms: AtomicU64,
    /// Reads that found nothing left to read (or the end): all bytes before were read.
    pub drained: AtomicU64,
    pub in_service: AtomicUsize,
    pub close: Notify,
}

impl Conn {
    pub fn new(id: u64, activity: &Activity) -> Conn {
        Conn {
            id,
            last_active_ms: AtomicU64::new(activity.now_ms()),
            drained: AtomicU64::new(0),
            in_service: AtomicUsize::new(0),
            close: Notify::new(),
        }
    }

    pub fn idle(&self) -> bool {
        self.in_service.load(Ordering::SeqCst) == 0
    }
}

/// Ends when the connection has been silent for `timeout` with nothing in service.
pub async fn idle(conn: &Conn, activity: &Activity, timeout: Duration) {
    let timeout = timeout.as_millis() as u64;
    loop {
        let due = conn.last_active_ms.load(Ordering::SeqCst) + timeout;
        let now = activity.now_ms();
        if now >= due && conn.idle() {
            return;
        }
        let wait = if now >= due { timeout } else { due - now };
        tokio::time::sleep(Duration::from_millis(wait)).await;
    }
}

/// A request being answered; the connection counts as active until it is.
pub struct InService {
    conn: Arc<Conn>,
    activity: Arc<Activity>,
}

impl InService {
    pub fn new(conn: Arc<Conn>, activity: Arc<Activity>) -> InService {
        conn.in_service.fetch_add(1, Ordering::SeqCst);
        InService { conn, activity }
    }
}

impl Drop for InService {
    fn drop(&mut self) {
        self.conn
            .last_active_ms
            .store(self.activity.now_ms(), Ordering::SeqCst);
        self.conn.in_service.fetch_sub(1, Ordering::SeqCst);
        self.activity.wake();
    }
}

/// The connection's stream, noting when bytes move and when a read finds none left.
pub struct Tracked {
    pub stream: TcpStream,
    pub conn: Arc<Conn>,
    pub activity: Arc<Activity>,
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
                let now = self.activity.now_ms();
                self.conn.last_active_ms.store(now, Ordering::SeqCst);
            }
            _ => {
                self.conn.drained.fetch_add(1, Ordering::SeqCst);
                self.activity.wake();
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
            let now = self.activity.now_ms();
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
