#!/usr/bin/env python3
"""Ledger benchmark: `proctor ledger report --period week --by label` over a generated
ledger, against the plain-Python csv + decimal baseline (baseline.py) doing the same
roll-up, in the same run on the same machine. Prints wall time, peak memory and the ratio,
and checks that both wrote the same report.

    python3 bench/ledger/run_bench.py                  # 1,000,000 rows, median of 3 runs
    python3 bench/ledger/run_bench.py --rows 100000 --runs 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PROCTOR = ROOT / "target" / "dist" / "proctor"


def measure(cmd: list[str]) -> tuple[float, int]:
    """Wall seconds and peak resident memory (KiB) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return elapsed, usage.ru_maxrss


def ledger_file(out_dir: Path, rows: int, seed: int) -> Path:
    path = out_dir / f"ledger-{rows}-{seed}.csv"
    if not path.exists():
        print(f"generating {rows} rows into {path}", file=sys.stderr)
        subprocess.run([sys.executable, str(HERE / "gen_ledger.py"), "--rows", str(rows),
                        "--seed", str(seed), "--out", str(path)], check=True)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out-dir", type=Path, default=ROOT / "bench" / "out" / "ledger")
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()
    if not args.no_build:
        subprocess.run(["cargo", "build", "--profile", "dist", "--quiet", "-p", "proctor", "--bin", "proctor"],
                       cwd=ROOT, check=True)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    ledger = ledger_file(args.out_dir, args.rows, args.seed)
    small = ledger_file(args.out_dir, max(args.rows // 4, 1), args.seed)
    ours = args.out_dir / "proctor-weekly.csv"
    theirs = args.out_dir / "python-weekly.csv"
    report = lambda path, out: [str(PROCTOR), "ledger", "report", "--ledger", str(path),
                                "--period", "week", "--by", "label", "--out", str(out)]
    proctor_runs, python_runs = [], []
    for n in range(args.runs):
        print(f"run {n + 1}/{args.runs}", file=sys.stderr)
        proctor_runs.append(measure(report(ledger, ours)))
        python_runs.append(measure([sys.executable, str(HERE / "baseline.py"), str(ledger), str(theirs)]))
    if ours.read_bytes() != theirs.read_bytes():
        raise SystemExit(f"the reports differ: diff {ours} {theirs}")
    _, small_rss = measure(report(small, args.out_dir / "proctor-small.csv"))
    p_time = statistics.median(t for t, _ in proctor_runs)
    y_time = statistics.median(t for t, _ in python_runs)
    p_rss = max(m for _, m in proctor_runs)
    y_rss = max(m for _, m in python_runs)
    size = ledger.stat().st_size / 2**20
    print(f"ledger: {args.rows:,} rows, {size:.0f} MiB; weekly report by label; median of {args.runs} runs")
    print(f"{'contender':<28}{'seconds':>9}{'rows/s':>13}{'peak MiB':>10}")
    for name, secs, rss in (("proctor ledger report", p_time, p_rss),
                            ("python csv + decimal", y_time, y_rss)):
        print(f"{name:<28}{secs:>9.3f}{args.rows / secs:>13,.0f}{rss / 1024:>10.1f}")
    print(f"proctor peak memory on {args.rows // 4:,} rows: {small_rss / 1024:.1f} MiB "
          f"(x{p_rss / small_rss:.2f} for x4 the rows)")
    print(f"ratio: proctor is {y_time / p_time:.1f}x faster than the Python baseline (target >= 10x); reports identical")


if __name__ == "__main__":
    main()
