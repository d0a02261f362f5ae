//! Ctrl-C and SIGTERM: stop scheduling, kill running agents, keep finished results.

use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::watch;

/// A flag that turns true on SIGINT or SIGTERM.
pub fn cancellation() -> std::io::Result<watch::Receiver<bool>> {
    let (sender, receiver) = watch::channel(false);
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    tokio::spawn(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        let _ = sender.send(true);
        // Keep the sender alive so receivers do not see a closed channel.
        std::future::pending::<()>().await;
    });
    Ok(receiver)
}
