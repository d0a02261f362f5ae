#!/usr/bin/env python3
"""What isolation costs per attempt: `proctor run --isolate namespaces` against
`--isolate none` on the same 1000 attempts (200 tasks x 5, an agent that exits at once),
interleaved, in the same run on the same machine. Prints the extra milliseconds per
attempt (target: at most 5 ms) and the ratio of wall times.

    python3 bench/run/isolation_bench.py [--tasks 200] [--attempts 5] [--jobs N] [--runs 3] [--no-build] [--proctor BIN]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROCTOR = os.path.join(ROOT, "target", "dist", "proctor")


def write_tasks(path, count):
    with open(path, "w") as f:
        for i in range(count):
            f.write(f'{{"id": "task_{i:04d}", "input": "answer ok", "expected": "ok"}}\n')


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--attempts", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--proctor", default=PROCTOR, help="the binary (default: the dist build)")
    args = parser.parse_args()

    if not args.no_build and args.proctor == PROCTOR:
        subprocess.run(["cargo", "build", "--profile", "dist", "-p", "proctor", "--bin", "proctor"], cwd=ROOT, check=True)
    true = shutil.which("true")
    work = tempfile.mkdtemp(prefix="proctor-isolation-bench-")
    try:
        tasks = os.path.join(work, "tasks.jsonl")
        write_tasks(tasks, args.tasks)
        total = args.tasks * args.attempts

        def command(mode):
            return [
                args.proctor, "run", "--tasks", tasks, "--agent", true, "--isolate", mode,
                "--attempts", str(args.attempts), "--jobs", str(args.jobs),
                "--out", os.path.join(work, f"{mode}.jsonl"), "--format", "json",
            ]

        times = {"none": [], "namespaces": []}
        for run in range(args.runs):
            # Interleaved, so both see the same machine load.
            for mode in times:
                times[mode].append(timed(command(mode)))
            print(
                f"run {run + 1}: none {times['none'][-1]:.3f}s, namespaces {times['namespaces'][-1]:.3f}s",
                file=sys.stderr,
            )
        none = statistics.median(times["none"])
        isolated = statistics.median(times["namespaces"])
        # Attempts run --jobs at a time: the wall-time difference spread over the attempts
        # is the cost users wait for; multiplied by --jobs it is the work each attempt adds.
        per_attempt_ms = (isolated - none) / total * 1000
        work_ms = per_attempt_ms * args.jobs
        print(f"{total} attempts ({args.tasks} tasks x {args.attempts}), --jobs {args.jobs}, median of {args.runs}")
        print(f"  --isolate none:       {none:.3f} s  ({none / total * 1000:.2f} ms an attempt)")
        print(f"  --isolate namespaces: {isolated:.3f} s  ({isolated / total * 1000:.2f} ms an attempt)")
        print(f"  ratio namespaces / none: {isolated / none:.2f}x")
        print(
            f"  isolation's cost: {per_attempt_ms:.2f} ms of wall time an attempt, "
            f"{work_ms:.2f} ms of work an attempt at --jobs {args.jobs} "
            f"(target <= 5 ms: {'PASS' if per_attempt_ms <= 5 else 'MISS'})"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
