//! proctor's loopback HTTP/1 servers: one listener on 127.0.0.1 that the OTLP receiver, the
//! tool server and `proctor review` each build on, so the bounds every one of them needs
//! (connections open at once, idle time, the request head, the time and memory a body may
//! take) are written once.
//!
//! - [`listener`]: the accept loop, bounded in connections, and [`Listener::settle`].
//! - [`connection`]: one connection's bookkeeping: when bytes last moved, requests in service.
//! - [`body`]: reading a request body whole, bounded in size, time and memory.
//! - [`page_server`]: what the page servers (`review`, `view`) check and add to every answer;
//!   [`token`]: their secret.

pub mod body;
mod connection;
pub mod listener;
pub mod page_server;
pub mod token;

pub use body::{BodyError, declared_length, mib, read_body};
pub use listener::{Limits, Listener, bind};
