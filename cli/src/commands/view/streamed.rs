//! A page written straight into the answer as it is made: the writer runs on a blocking
//! thread and hands chunks over a short channel, so a page of a hundred thousand attempts
//! costs the server a few chunks of memory, and the browser starts reading it before the
//! last attempt is written (docs/viewing.md#one-run).

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use std::io::Write;
use tokio::sync::mpsc;

/// The body of every answer of the view server.
pub type ViewBody = BoxBody<Bytes, std::io::Error>;

/// Bytes per chunk handed over.
const CHUNK: usize = 64 << 10;
/// Chunks waiting to be sent at most: the memory a page holds while the client reads.
const CHUNKS_IN_FLIGHT: usize = 16;

/// A writer whose bytes become the body of an answer.
pub struct ChannelWriter {
    sender: mpsc::Sender<Result<Frame<Bytes>, std::io::Error>>,
    buffer: Vec<u8>,
}

/// A writer for a blocking thread, and the body that streams what it writes.
pub fn channel() -> (ChannelWriter, ViewBody) {
    let (sender, receiver) = mpsc::channel(CHUNKS_IN_FLIGHT);
    let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|chunk| (chunk, receiver))
    });
    let writer = ChannelWriter {
        sender,
        buffer: Vec::with_capacity(CHUNK),
    };
    (writer, StreamBody::new(stream).boxed())
}

impl ChannelWriter {
    fn send(&mut self) -> std::io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(
            &mut self.buffer,
            Vec::with_capacity(CHUNK),
        ));
        self.sender
            .blocking_send(Ok(Frame::data(chunk)))
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the browser left"))
    }

    /// Ends the body with an error, so the browser sees a cut answer rather than a whole
    /// page missing its end.
    pub fn fail(self, why: String) {
        let _ = self.sender.blocking_send(Err(std::io::Error::other(why)));
    }
}

impl Write for ChannelWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        if self.buffer.len() >= CHUNK {
            self.send()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_arrives_whole_and_in_order() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let (mut writer, body) = channel();
        let writing = std::thread::spawn(move || {
            for i in 0..50_000u32 {
                write!(writer, "{i},").unwrap();
            }
            writer.flush().unwrap();
        });
        let got = runtime.block_on(async { body.collect().await.unwrap().to_bytes() });
        writing.join().unwrap();
        let expected: String = (0..50_000u32).map(|i| format!("{i},")).collect();
        assert_eq!(got, expected.as_bytes());
    }
}
