#!/usr/bin/env python3
"""Benchmark of `proctor run`'s own overhead.

200 tasks x 5 attempts with an agent that exits at once (/bin/true), against a plain
shell loop (xargs -P) that spawns the same 1000 processes with the same parallelism.
Both are measured in the same run on the same machine; the ratio is what counts
(target: proctor at most 1.3x the loop's wall time).

    python3 bench/run/run_bench.py [--tasks 200] [--attempts 5] [--jobs 2] [--runs 3] [--no-build]
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


def timed(command, **kwargs):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--attempts", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()

    if not args.no_build:
        subprocess.run(["cargo", "build", "--profile", "dist", "-p", "proctor", "--bin", "proctor"], cwd=ROOT, check=True)
    true = shutil.which("true")
    work = tempfile.mkdtemp(prefix="proctor-run-bench-")
    try:
        tasks = os.path.join(work, "tasks.jsonl")
        write_tasks(tasks, args.tasks)
        total = args.tasks * args.attempts
        proctor_cmd = [
            PROCTOR, "run", "--tasks", tasks, "--agent", true,
            "--attempts", str(args.attempts), "--jobs", str(args.jobs),
            "--out", os.path.join(work, "r.jsonl"), "--format", "json",
        ]
        # The same number of processes, the same parallelism, nothing else.
        loop_cmd = ["sh", "-c", f"seq {total} | xargs -P {args.jobs} -n 1 {true}"]
        proctor_times, loop_times = [], []
        for run in range(args.runs):
            # Interleaved, so both see the same machine load.
            loop_times.append(timed(loop_cmd))
            proctor_times.append(timed(proctor_cmd))
            print(f"run {run + 1}: loop {loop_times[-1]:.3f}s, proctor {proctor_times[-1]:.3f}s", file=sys.stderr)
        loop, proctor = statistics.median(loop_times), statistics.median(proctor_times)
        ratio = proctor / loop
        print(f"{total} attempts ({args.tasks} tasks x {args.attempts}), --jobs {args.jobs}, median of {args.runs}")
        print(f"  shell loop (xargs -P {args.jobs}): {loop:.3f} s  ({total / loop:,.0f} processes/s)")
        print(f"  proctor run:                {proctor:.3f} s  ({total / proctor:,.0f} attempts/s)")
        print(f"  ratio proctor / loop: {ratio:.2f}x  (target <= 1.3x: {'PASS' if ratio <= 1.3 else 'MISS'})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
