#!/usr/bin/env python3
"""The result-line writer of this checkout against a baseline commit's, in the same run.

Builds `proctor` twice with the same profile and target folder (dependencies are built
once): from a baseline commit (default `main`, exported with `git archive` into
bench/out/baseline/REV) and from this checkout. Then, in interleaved rounds on grade_bench's
generated log, runs each binary with `--out R` and without it:

  proctor grade --tasks T --outcomes LOG --format json [--out R]

and prints the median wall and CPU seconds, the ratio of `--out` runs (this checkout over
the baseline) and the ratio of the writing alone (`--out` run minus the run without it).
The result files of the two builds are compared byte for byte, but for `priced_at` (the
time of the run): a writer that changed the format fails the benchmark.

    python3 bench/writer_bench.py                       # main, 1,000,000 lines, 3 rounds
    python3 bench/writer_bench.py --baseline HEAD~1 --lines 200000 --profile dist
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import grade_bench

BENCH = grade_bench.BENCH
ROOT = grade_bench.ROOT


def build(source: Path, profile: str, target: Path, copy_to: Path) -> Path:
    """Builds `proctor` from `source` and copies the binary to `copy_to`: both builds share
    one target folder, where each overwrites the other's binary."""
    command = ["cargo", "build", "--locked", "--profile", profile, "-p", "proctor", "--bin", "proctor"]
    print(f"$ (cd {source} && {' '.join(command)})", file=sys.stderr, flush=True)
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    subprocess.run(command, cwd=source, env=env, check=True)
    copy_to.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(target / profile / "proctor", copy_to)
    return copy_to


def export(rev: str, into: Path) -> tuple[str, Path]:
    """The source of commit `rev`, exported once into `into/COMMIT`."""
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", f"{rev}^{{commit}}"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    source = into / commit
    if not (source / "Cargo.toml").exists():
        source.mkdir(parents=True, exist_ok=True)
        archive = subprocess.Popen(["git", "archive", commit], cwd=ROOT, stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", str(source)], stdin=archive.stdout, check=True)
        if archive.wait() != 0:
            sys.exit(f"error: git archive {commit} failed")
    return commit, source


PRICED_AT = re.compile(rb'"priced_at":"[^"]*"')


def same_lines(a: Path, b: Path) -> bool:
    """Whether two result files hold the same bytes, `priced_at` (the run's time) aside."""
    with a.open("rb") as left, b.open("rb") as right:
        for x, y in zip(left, right, strict=False):
            if PRICED_AT.sub(b"", x) != PRICED_AT.sub(b"", y):
                return False
        return left.read(1) == right.read(1) == b""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="main", help="commit to compare with (default main)")
    parser.add_argument("--profile", default="release", choices=["release", "dist"],
                        help="cargo profile (default release)")
    parser.add_argument("--runs", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--lines", type=int, default=1_000_000, help="log size (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out-dir", type=Path, default=BENCH / "out")
    parser.add_argument("--no-build", action="store_true", help="reuse the binaries built before")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    target = grade_bench.target_dir() / "bench"
    commit, source = export(args.baseline, args.out_dir / "baseline")
    binaries = {
        "baseline": args.out_dir / "baseline" / f"proctor-{commit[:12]}-{args.profile}",
        "current": args.out_dir / f"proctor-current-{args.profile}",
    }
    if not args.no_build:
        build(source, args.profile, target, binaries["baseline"])
        build(ROOT, args.profile, target, binaries["current"])
    log, tasks_yaml, _ = grade_bench.generate(args.out_dir, args.lines, args.seed)
    base = ["grade", "--tasks", str(tasks_yaml), "--outcomes", str(log), "--format", "json"]
    results = {name: args.out_dir / f"writer_results_{name}.jsonl" for name in binaries}
    samples: dict[tuple[str, bool], list[dict]] = {
        (name, out): [] for name in binaries for out in (True, False)
    }
    for round_ in range(args.runs):
        for name, binary in binaries.items():
            # The --out run last, so the last round's result files stay for comparing.
            for out in (False, True):
                results[name].unlink(missing_ok=True)
                command = [str(binary), *base] + (["--out", str(results[name])] if out else [])
                run = grade_bench.measure(command, args.out_dir / "writer_stdout.txt")
                samples[(name, out)].append(run)
                print(
                    f"  round {round_ + 1}/{args.runs} {name} {'--out' if out else 'no --out'}:"
                    f" {run['wall']:.2f} s wall, {run['cpu']:.2f} s cpu",
                    file=sys.stderr,
                    flush=True,
                )
    same = same_lines(results["baseline"], results["current"])
    size = results["current"].stat().st_size
    for path in results.values():
        path.unlink(missing_ok=True)

    def median(name: str, out: bool, key: str) -> float:
        return statistics.median(s[key] for s in samples[(name, out)])

    print(
        f"{args.lines:,} lines, profile {args.profile}, {args.runs} interleaved round(s),"
        f" medians; baseline {commit[:12]}"
    )
    print(f"{'build':<10} {'--out wall':>10} {'cpu':>7} {'no --out wall':>14} {'cpu':>7}  --out runs (wall s)")
    for name in binaries:
        walls = ", ".join(f"{s['wall']:.2f}" for s in samples[(name, True)])
        print(
            f"{name:<10} {median(name, True, 'wall'):10.2f} {median(name, True, 'cpu'):7.2f}"
            f" {median(name, False, 'wall'):14.2f} {median(name, False, 'cpu'):7.2f}  {walls}"
        )
    for key in ("wall", "cpu"):
        ratio = median("current", True, key) / median("baseline", True, key)
        writing = {
            name: median(name, True, key) - median(name, False, key) for name in binaries
        }
        share = writing["current"] / writing["baseline"] if writing["baseline"] > 0 else float("nan")
        print(
            f"--out {key}: current / baseline = {ratio:.2f}x; writing alone"
            f" (--out minus no --out): {writing['baseline']:.2f} s -> {writing['current']:.2f} s"
            f" ({share:.2f}x)"
        )
    verdict = "identical but for priced_at" if same else "DIFFERENT"
    print(f"result files ({size:,} bytes): {verdict}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
