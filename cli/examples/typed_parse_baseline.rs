//! Benchmark baseline for `proctor grade` on refund logs (`bench/check_bench.py`): read a
//! JSONL file line by line and parse each line into a typed struct that borrows its
//! strings, reading only what the one check needs (the order and each step's tool and
//! `order_id`), counting the lines that parse. See `bench/README.md`.
//!
//! `cargo run --release -p proctor --example typed_parse_baseline -- LOG.jsonl`

use serde::Deserialize;
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufRead, BufReader};

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    #[allow(dead_code)]
    order: Cow<'a, str>,
    #[serde(borrow)]
    #[allow(dead_code)]
    trajectory: Vec<(Cow<'a, str>, Args<'a>)>,
}

#[derive(Deserialize)]
struct Args<'a> {
    #[serde(borrow, default)]
    #[allow(dead_code)]
    order_id: Option<Cow<'a, str>>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os()
        .nth(1)
        .ok_or("usage: typed_parse_baseline LOG.jsonl")?;
    let mut reader = BufReader::with_capacity(1 << 16, File::open(&path)?);
    let mut line = String::new();
    let mut parsed: u64 = 0;
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        if serde_json::from_str::<Line<'_>>(text).is_ok() {
            parsed += 1;
        }
    }
    println!("{parsed}");
    Ok(())
}
