//! proctor's loopback HTTP/1 servers: one listener on 127.0.0.1 that the OTLP receiver, the
//! tool server and `proctor review` each build on, so the bounds every one of them needs
//! (connections open at once, idle time, the request head, the time and memory a body may
//! take) are written once.
//!
//! - [`listener`]: the accept loop, bounded in connections, and [`Listener::settle`].
//! - [`connection`]: one connection's bookkeeping: when bytes last moved, requests in service.
//! - [`body`]: reading a request body whole, bounded in size, time and memory.

pub mod body;
mod connection;
pub mod listener;

pub use body::{BodyError, declared_length, mib, read_body};
pub use listener::{Limits, Listener, bind};
