//! Statistics (DESIGN 3.6).
