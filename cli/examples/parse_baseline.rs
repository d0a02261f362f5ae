//! Benchmark baseline for `proctor grade`: only read a JSONL file line by line and parse
//! each line with `serde_json` into a `Value`, counting the objects. See `bench/README.md`.
//!
//! `cargo run --release -p proctor --example parse_baseline -- LOG.jsonl`

use std::fs::File;
use std::io::{BufRead, BufReader};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os()
        .nth(1)
        .ok_or("usage: parse_baseline LOG.jsonl")?;
    let mut reader = BufReader::with_capacity(1 << 16, File::open(&path)?);
    let mut line = String::new();
    let mut objects: u64 = 0;
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if let Ok(serde_json::Value::Object(_)) = serde_json::from_str::<serde_json::Value>(text) {
            objects += 1;
        }
    }
    println!("{objects}");
    Ok(())
}
