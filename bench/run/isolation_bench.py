#!/usr/bin/env python3
"""What isolation costs per attempt, in both containment modes: `proctor run` with
namespaces (bubblewrap) and with the fallback (landlock and a subreaper; bubblewrap made
unfindable through PROCTOR_BWRAP) against `--isolate none`, on the same 1000 attempts
(200 tasks x 5, an agent that exits at once), interleaved, in the same run on the same
machine. Prints, for each mode, the extra wall-time milliseconds per attempt (target: at
most 1.5 ms) and the CPU time (user + system, proctor and everything it started) per
attempt.

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


MODES = {
    # name: (--isolate, extra environment)
    "none": ("none", {}),
    "namespaces": ("namespaces", {}),
    "fallback": ("auto", {"PROCTOR_BWRAP": "/nonexistent"}),
}
TARGET_MS = 1.5


def timed(command, env):
    """Wall seconds and CPU seconds (user + system of the command and its descendants)."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={**os.environ, **env})
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


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
                args.proctor, "run", "--tasks", tasks, "--agent", true, "--isolate", MODES[mode][0],
                "--attempts", str(args.attempts), "--jobs", str(args.jobs),
                "--out", os.path.join(work, f"{mode}.jsonl"), "--format", "json",
            ]

        walls = {mode: [] for mode in MODES}
        cpus = {mode: [] for mode in MODES}
        for run in range(args.runs):
            # Interleaved, so every mode sees the same machine load.
            for mode in MODES:
                wall, cpu = timed(command(mode), MODES[mode][1])
                walls[mode].append(wall)
                cpus[mode].append(cpu)
            print(
                f"run {run + 1}: " + ", ".join(f"{m} {walls[m][-1]:.3f}s" for m in MODES),
                file=sys.stderr,
            )
        print(f"{total} attempts ({args.tasks} tasks x {args.attempts}), --jobs {args.jobs}, median of {args.runs}")
        none = statistics.median(walls["none"])
        none_cpu = statistics.median(cpus["none"])
        for mode in MODES:
            wall = statistics.median(walls[mode])
            cpu = statistics.median(cpus[mode])
            line = (
                f"  {mode:<11} {wall:.3f} s wall ({wall / total * 1000:.2f} ms an attempt), "
                f"{cpu / total * 1000:.2f} ms CPU an attempt"
            )
            if mode != "none":
                # Attempts run --jobs at a time: the wall-time difference spread over the
                # attempts is the cost users wait for.
                extra_ms = (wall - none) / total * 1000
                extra_cpu_ms = (cpu - none_cpu) / total * 1000
                verdict = "PASS" if extra_ms <= TARGET_MS else "MISS"
                line += (
                    f"; over none: {extra_ms:.2f} ms wall, {extra_cpu_ms:.2f} ms CPU an attempt "
                    f"(target <= {TARGET_MS} ms wall: {verdict})"
                )
            print(line)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
