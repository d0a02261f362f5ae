#!/usr/bin/env python3
"""The plain-Python baseline: the weekly roll-up of `proctor ledger report --period week
--by label`, with the standard library's csv and decimal modules, written the way one
would write it by hand (csv.DictReader, Decimal, datetime, dicts, a set of attempts).

It writes the same CSV as proctor, so the benchmark can check that both agree.

    python3 bench/ledger/baseline.py LEDGER.csv OUT.csv
"""

from __future__ import annotations

import csv
import datetime as dt
import sys
from decimal import ROUND_HALF_EVEN, Decimal

COLUMNS = [
    "period", "period_start", "period_end", "label", "runs", "successes", "success_rate",
    "agent_cost_usd", "judge_cost_usd", "total_cost_usd", "cost_per_success_usd",
    "cost_per_run_usd", "input_tokens", "cache_read_tokens", "cache_write_tokens",
    "output_tokens", "unpriced_calls",
]


def rounded(value, places):
    if value is None:
        return ""
    q = Decimal(1).scaleb(-places)
    text = format(value.quantize(q, rounding=ROUND_HALF_EVEN).normalize(), "f")
    return text


def main() -> None:
    ledger, out_path = sys.argv[1], sys.argv[2]
    groups = {}
    attempts = set()
    with open(ledger, newline="") as f:
        for row in csv.DictReader(f):
            at = dt.datetime.fromisoformat(row["recorded_at"].replace("Z", "+00:00")).astimezone(dt.timezone.utc)
            day = at.date()
            monday = day - dt.timedelta(days=day.weekday())
            label = row["label"]
            g = groups.setdefault((monday, label), {
                "runs": 0, "successes": 0, "agent": None, "judge": None, "input": 0,
                "cache_read": 0, "cache_write": 0, "output": 0, "unpriced": 0,
            })
            key = (row["recorded_at"], row["run_id"], row["suite"], label, row["task"], row["attempt"])
            if key not in attempts:
                attempts.add(key)
                g["runs"] += 1
                if row["passed"] == "true":
                    g["successes"] += 1
            for column, name in (("input_tokens", "input"), ("cache_read_tokens", "cache_read"),
                                 ("cache_write_tokens", "cache_write"), ("output_tokens", "output")):
                n = int(row[column])
                if n < 0:
                    raise SystemExit(f"{ledger}: negative {column}")
                g[name] += n
            if row["cost_usd"]:
                role = row["role"]
                g[role] = (g[role] or Decimal(0)) + Decimal(row["cost_usd"])
            else:
                g["unpriced"] += int(row["calls"] or 1)
    with open(out_path, "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(COLUMNS)
        for (monday, label) in sorted(groups):
            g = groups[(monday, label)]
            year, week, _ = monday.isocalendar()
            total = None if g["agent"] is None and g["judge"] is None else (g["agent"] or 0) + (g["judge"] or 0)
            runs, wins = g["runs"], g["successes"]
            out.writerow([
                f"{year:04d}-W{week:02d}", monday.isoformat(), (monday + dt.timedelta(days=6)).isoformat(),
                label, runs, wins, rounded(Decimal(wins) / Decimal(runs), 4),
                rounded(g["agent"], 6), rounded(g["judge"], 6), rounded(total, 6),
                rounded(total / wins if total is not None and wins else None, 6),
                rounded(total / runs if total is not None else None, 6),
                g["input"], g["cache_read"], g["cache_write"], g["output"], g["unpriced"],
            ])


if __name__ == "__main__":
    main()
