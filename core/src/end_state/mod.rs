//! End-state checks (DESIGN 3.4).
