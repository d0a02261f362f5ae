#!/usr/bin/env python3
"""Two or more builds of proctor on the same generated log, interleaved: did a change help?

Each round runs every binary once (`proctor grade --tasks T --outcomes LOG --out R --format
json`), in turn, each run starting with no result file, so drifting load on the machine hits
them alike; the table gives the median wall and CPU time over the rounds and every run's wall
time, so the spread is visible. It uses the log and tasks of grade_bench.py (generated into
bench/out/ if missing) and its way of measuring a process.

    cp target/dist/proctor /tmp/proctor-before     # build, copy, change, build again
    python3 bench/compare_builds.py /tmp/proctor-before target/dist/proctor --runs 5

With --refunds, the log and tasks of check_bench.py instead (one argument-bound rule,
`--task-key order`; --spaced for its spaced log); --no-out leaves out `--out`, as
check_bench's default contender does.

    python3 bench/compare_builds.py /tmp/proctor-before target/dist/proctor --refunds --no-out
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import check_bench
import grade_bench


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binaries", nargs="+", type=Path, help="proctor binaries to compare")
    parser.add_argument("--runs", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--lines", type=int, default=1_000_000, help="log size (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, help="passed to proctor grade --jobs")
    parser.add_argument("--out-dir", type=Path, default=grade_bench.BENCH / "out")
    parser.add_argument("--refunds", action="store_true",
                        help="grade check_bench.py's refund log (--task-key order)")
    parser.add_argument("--no-out", action="store_true", help="write no result lines")
    parser.add_argument("--spaced", action="store_true",
                        help="with --refunds, the log written with json.dumps's default spacing")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    extra: list[str] = []
    if args.refunds:
        log = check_bench.generate(args.out_dir, args.lines, args.seed, spaced=args.spaced)
        tasks_yaml = args.out_dir / "refund_tasks.yaml"
        check_bench.write_tasks(tasks_yaml)
        extra = ["--task-key", "order"]
    else:
        log, tasks_yaml, _ = grade_bench.generate(args.out_dir, args.lines, args.seed)
    results = args.out_dir / "compare_results.jsonl"
    samples: dict[int, list[dict]] = {i: [] for i in range(len(args.binaries))}
    for round_ in range(args.runs):
        for i, binary in enumerate(args.binaries):
            results.unlink(missing_ok=True)
            command = [
                str(binary), "grade", "--tasks", str(tasks_yaml), "--outcomes", str(log),
                "--format", "json", *extra,
            ]  # fmt: skip
            if not args.no_out:
                command += ["--out", str(results)]
            if args.jobs:
                command += ["--jobs", str(args.jobs)]
            run = grade_bench.measure(command, args.out_dir / "compare_stdout.txt")
            samples[i].append(run)
            print(
                f"  run {round_ + 1}/{args.runs} {binary}: {run['wall']:.2f} s wall,"
                f" {run['cpu']:.2f} s cpu",
                file=sys.stderr,
                flush=True,
            )
    results.unlink(missing_ok=True)
    print(f"{args.lines:,} lines, {args.runs} interleaved run(s) each, medians")
    print(f"{'binary':<40} {'wall s':>7} {'cpu s':>7}  runs (wall s)")
    first = None
    for i, binary in enumerate(args.binaries):
        wall = statistics.median(s["wall"] for s in samples[i])
        cpu = statistics.median(s["cpu"] for s in samples[i])
        first = first or (wall, cpu)
        walls = ", ".join(f"{s['wall']:.2f}" for s in samples[i])
        ratio = "" if i == 0 else f"  ({wall / first[0]:.2f}x wall, {cpu / first[1]:.2f}x cpu)"
        print(f"{str(binary):<40} {wall:7.2f} {cpu:7.2f}  {walls}{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
