//! How long a stopped agent's process group gets between SIGTERM and SIGKILL: the same in
//! every containment mode, so an agent saving its work on SIGTERM has the same time whether
//! proctor or the fallback's helper sends the signals.

use std::time::Duration;

/// How long a group gets between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(2);
