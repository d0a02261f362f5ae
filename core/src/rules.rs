//! Trajectory rules (DESIGN 3.3).
