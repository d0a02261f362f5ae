#!/usr/bin/env python3
"""Deterministic generator of large proctor.ledger/1 files for the ledger benchmark.

Writes N rows: attempts of 40 tasks by four agent versions over a year and a bit (so ISO
weeks cross a year boundary), each attempt one agent row (two models for some) and, for a
third of the tasks, a judge row; about 5% of agent rows are of an unpriced model (empty
cost). Times are UTC `...Z`, as proctor writes them. Same --rows and --seed, same bytes.

    python3 bench/ledger/gen_ledger.py --rows 1000000 --out bench/out/ledger/ledger.csv
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import random
from decimal import Decimal
from pathlib import Path

COLUMNS = [
    "recorded_at", "run_id", "suite", "label", "task", "attempt", "passed", "role",
    "provider", "model", "input_tokens", "cache_read_tokens", "cache_write_tokens",
    "output_tokens", "reasoning_tokens", "cost_usd", "price_id", "cache_write_1h_tokens",
    "service_tier", "calls", "format",
]
LABELS = ["v1", "v2", "v3", "v4"]
AGENTS = [
    ("anthropic", "claude-sonnet-4-6", "anthropic/claude-sonnet-4-6@2026-02-17",
     (Decimal("3"), Decimal("0.30"), Decimal("3.75"), Decimal("15"))),
    ("anthropic", "claude-haiku-4-5", "anthropic/claude-haiku-4-5@2025-10-15",
     (Decimal("1"), Decimal("0.10"), Decimal("1.25"), Decimal("5"))),
]
JUDGE = ("openai", "gpt-5-mini", "openai/gpt-5-mini@2025-08-07",
         (Decimal("0.25"), Decimal("0.025"), Decimal("0.25"), Decimal("2")))
START = dt.datetime(2026, 3, 2, tzinfo=dt.timezone.utc)
SPAN_SECONDS = 400 * 24 * 3600
MILLION = Decimal(1_000_000)


def cost(prices, i, r, w, o):
    pi, pr, pw, po = prices
    return format(((i * pi + r * pr + w * pw + o * po) / MILLION).normalize(), "f")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    attempt_no = 0
    with args.out.open("w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(COLUMNS)
        while written < args.rows:
            at = START + dt.timedelta(seconds=int(SPAN_SECONDS * written / args.rows) + rng.randrange(60))
            stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
            label = LABELS[rng.randrange(4)]
            task = f"task_{rng.randrange(40):02d}"
            run_id = f"run{(written // 5000):06d}"
            passed = "true" if rng.random() < 0.6 else "false"
            base = [stamp, run_id, "bench", label, task, str(attempt_no), passed]
            attempt_no += 1
            models = [AGENTS[rng.randrange(2)]]
            if rng.random() < 0.1:
                models.append(AGENTS[0])
            for provider, model, price_id, prices in models:
                i, r, w, o = rng.randrange(500, 5000), rng.randrange(0, 60000), rng.randrange(0, 8000), rng.randrange(100, 3000)
                calls = rng.randrange(1, 9)
                if rng.random() < 0.05:
                    model, price_id, c = "unreleased-model", "", ""
                else:
                    c = cost(prices, i, r, w, o)
                out.writerow(base + ["agent", provider, model, i, r, w, o, 0, c, price_id, 0, "", calls, "proctor.ledger/1"])
                written += 1
            if task < "task_13" and written < args.rows:
                provider, model, price_id, prices = JUDGE
                i, o = rng.randrange(2000, 4000), rng.randrange(100, 400)
                out.writerow(base + ["judge", provider, model, i, 0, 0, o, o // 2, cost(prices, i, 0, 0, o), price_id, 0, "", 1, "proctor.ledger/1"])
                written += 1


if __name__ == "__main__":
    main()
