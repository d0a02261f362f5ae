#!/usr/bin/env python3
"""Benchmark of `proctor grade` on a large outcome log, against two baselines.

Contenders, all on the same generated log (default 1,000,000 lines):
  proctor grade   target/dist/proctor grade --tasks T --outcomes LOG --out R --format json
                  (grading on every CPU, the default), and the same with --jobs 1
  serde_json parse  target/dist/examples/parse_baseline LOG  (read + parse each line, nothing else)
  python loop     bench/python_baseline.py (json.loads per line + the same checks + a result line)

Each contender runs --runs times (default 3, interleaved so drifting machine load hits all of
them alike); the table shows medians. Wall time and peak RSS are measured around the
process by a fresh Python helper process per run (getrusage(RUSAGE_CHILDREN) covers only
that one child), so one run's peak cannot leak into another's.

Targets (see bench/README.md):
  proctor lines/s >= 10x the python loop's
  proctor time <= 2x the serde_json parse time
  proctor peak RSS < 64 MiB (and flat: --scale reruns proctor on a 4x larger log)

    python3 bench/grade_bench.py                 # 1,000,000 lines, 3 runs
    python3 bench/grade_bench.py --lines 100000 --runs 1 --scale
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
MIB = 1024 * 1024

TARGET_SPEEDUP_VS_PYTHON = 10.0
TARGET_TIME_VS_PARSE = 2.0
TARGET_PEAK_MIB = 64.0


# --- measuring one process -------------------------------------------------------------


GNU_TIME = "/usr/bin/time"


def gnu_time() -> bool:
    """True when /usr/bin/time is GNU time (`-f`, `-o`): its peak RSS is exact, while
    getrusage's includes this helper's own pages (Linux keeps the high-water mark across the
    fork and exec of the child), which puts a floor of ~10-16 MiB under every reading."""
    try:
        done = subprocess.run([GNU_TIME, "--version"], capture_output=True, text=True)
    except OSError:
        return False
    return "GNU" in done.stdout + done.stderr


def measure_child(stdout_path: str, command: list[str]) -> int:
    """Runs in a fresh interpreter (`--_measure`): times `command`, reads its peak RSS."""
    rss_file = stdout_path + ".rss"
    use_time = gnu_time()
    if use_time:
        command = [GNU_TIME, "-f", "%M", "-o", rss_file, "--"] + command
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(stdout_path, "wb") as stdout:
        started = time.perf_counter()
        done = subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE)
        wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if use_time:
        # GNU time writes "Command exited with non-zero status N" first on failure.
        peak_bytes = int(Path(rss_file).read_text().split()[-1]) * 1024
        os.unlink(rss_file)
        method = "GNU time %M"
    else:
        peak = after.ru_maxrss  # KiB on Linux, bytes on macOS
        peak_bytes = peak if sys.platform == "darwin" else peak * 1024
        method = "getrusage(RUSAGE_CHILDREN), includes the helper's own pages"
    print(
        json.dumps(
            {
                "wall": wall,
                "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
                "peak_bytes": peak_bytes,
                "rss_method": method,
                "returncode": done.returncode,
                "stderr": done.stderr.decode("utf-8", "replace")[-2000:],
            }
        )
    )
    return 0


def measure(command: list[str], stdout_path: Path) -> dict:
    helper = [sys.executable, str(Path(__file__).resolve()), "--_measure", str(stdout_path), "--"]
    done = subprocess.run(helper + command, capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    if result["returncode"] != 0:
        sys.exit(
            f"error: {' '.join(command)} exited with {result['returncode']}:\n{result['stderr']}"
        )
    return result


# --- preparing binaries and data ---------------------------------------------------------


def build(cargo: str) -> None:
    command = [
        cargo, "build", "--profile", "dist", "-p", "proctor", "--bin", "proctor",
        "--example", "parse_baseline",
    ]  # fmt: skip
    print("$ " + " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, cwd=ROOT, check=True)


def target_dir() -> Path:
    return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")).resolve()


def generate(out_dir: Path, lines: int, seed: int) -> tuple[Path, Path, Path]:
    """The log, the YAML tasks and the JSON tasks; an existing log is reused (the
    generator is deterministic and writes through a temporary file)."""
    log = out_dir / f"outcomes_{lines}_s{seed}.jsonl"
    tasks_yaml = out_dir / "tasks.yaml"
    tasks_json = out_dir / "tasks.json"
    command = [sys.executable, str(BENCH / "gen_outcomes.py"), "--lines", str(lines),
               "--seed", str(seed), "--tasks", str(tasks_yaml), "--tasks-json", str(tasks_json)]  # fmt: skip
    if not log.exists():
        command += ["--out", str(log)]
        print(f"generating {lines:,} outcome lines into {log} ...", file=sys.stderr, flush=True)
    else:
        command += ["--lines", "0"]  # tasks only
    subprocess.run(command, check=True)
    return log, tasks_yaml, tasks_json


# --- the contenders ----------------------------------------------------------------------


def contenders(bins: Path, log: Path, tasks_yaml: Path, tasks_json: Path, out_dir: Path):
    proctor = bins / "proctor"
    parse = bins / "examples" / "parse_baseline"
    return {
        "proctor": [
            str(proctor), "grade", "--tasks", str(tasks_yaml), "--outcomes", str(log),
            "--out", str(out_dir / "proctor_results.jsonl"), "--format", "json",
        ],
        "proctor1": [
            str(proctor), "grade", "--tasks", str(tasks_yaml), "--outcomes", str(log),
            "--out", str(out_dir / "proctor1_results.jsonl"), "--format", "json", "--jobs", "1",
        ],
        "parse": [str(parse), str(log)],
        "python": [
            sys.executable, str(BENCH / "python_baseline.py"), "--tasks", str(tasks_json),
            "--outcomes", str(log), "--out", str(out_dir / "python_results.jsonl"),
        ],
    }  # fmt: skip


# The result file each contender writes.
RESULT_FILES = {
    "proctor": "proctor_results.jsonl",
    "proctor1": "proctor1_results.jsonl",
    "python": "python_results.jsonl",
}

LABELS = {
    "proctor": "proctor grade",
    "proctor1": "proctor grade --jobs 1",
    "parse": "serde_json parse only",
    "python": "python json loop",
}


def run_all(commands: dict, names: list[str], runs: int, out_dir: Path, keep: bool = False) -> dict:
    samples: dict[str, list[dict]] = {name: [] for name in names}
    for round_ in range(runs):
        for name in names:
            stdout = out_dir / f"{name}_stdout.txt"
            # Every run starts with no result files: an earlier run's 1 GB would otherwise be
            # truncated inside this run's time, or its dirty pages written back to disk by the
            # kernel while this run works (on a 2-core machine, beside it). With --keep-results
            # the last round keeps its files.
            last_kept = keep and round_ == runs - 1
            for other, file in RESULT_FILES.items():
                if other == name or not last_kept:
                    (out_dir / file).unlink(missing_ok=True)
            result = measure(commands[name], stdout)
            result["stdout"] = stdout.read_text(encoding="utf-8", errors="replace")
            samples[name].append(result)
            print(
                f"  run {round_ + 1}/{runs} {LABELS[name]:<22} {result['wall']:8.2f} s wall"
                f" {result['cpu']:8.2f} s cpu {result['peak_bytes'] / MIB:8.1f} MiB",
                file=sys.stderr,
                flush=True,
            )
    return samples


def medians(samples: list[dict]) -> dict:
    return {
        "wall": statistics.median(s["wall"] for s in samples),
        "cpu": statistics.median(s["cpu"] for s in samples),
        "peak_mib": max(s["peak_bytes"] for s in samples) / MIB,
        "walls": [s["wall"] for s in samples],
        "rss_method": samples[0]["rss_method"],
    }


def sanity(lines: int, samples: dict) -> list[str]:
    """Cheap cross-checks on the full run: every contender saw every line, and proctor and
    the Python loop agree on how many runs passed."""
    problems = []
    if "parse" in samples:
        count = samples["parse"][-1]["stdout"].strip()
        if count != str(lines):
            problems.append(f"parse baseline counted {count} objects, expected {lines}")
    passed = {}
    for name in ("proctor", "proctor1"):
        if name not in samples:
            continue
        summary = json.loads(samples[name][-1]["stdout"])
        if summary.get("attempts") != lines:
            problems.append(f"{LABELS[name]} graded {summary.get('attempts')} lines, expected {lines}")
        passed[name] = summary.get("passed")
    if "python" in samples:
        summary = json.loads(samples["python"][-1]["stdout"].strip().splitlines()[-1])
        if summary.get("graded") != lines:
            problems.append(f"python graded {summary.get('graded')} lines, expected {lines}")
        passed["python"] = summary.get("passed")
    if len(set(passed.values())) > 1:
        problems.append(f"pass counts differ: {passed}")
    return problems


def verify(bins: Path, out_dir: Path, lines: int, seed: int) -> str:
    """Grades a small log with both proctor and the Python loop and compares every line's
    passed, reasons and diagnosis: the baseline must do the same checks to be a baseline."""
    log, tasks_yaml, tasks_json = generate(out_dir, lines, seed)
    commands = contenders(bins, log, tasks_yaml, tasks_json, out_dir)
    for name in ("proctor", "python"):
        subprocess.run(commands[name], check=True, stdout=subprocess.DEVNULL)
    keys = ("task", "attempt", "passed", "reasons", "diagnosis")
    mismatches = 0
    first = None
    with (
        open(out_dir / "proctor_results.jsonl", encoding="utf-8") as a,
        open(out_dir / "python_results.jsonl", encoding="utf-8") as b,
    ):
        count = 0
        for count, (left, right) in enumerate(zip(a, b, strict=True), start=1):
            x, y = json.loads(left), json.loads(right)
            if [x[k] for k in keys] != [y[k] for k in keys]:
                mismatches += 1
                first = first or (count, [x[k] for k in keys], [y[k] for k in keys])
    for name in ("proctor_results.jsonl", "python_results.jsonl"):
        (out_dir / name).unlink(missing_ok=True)
    if mismatches:
        sys.exit(f"verify: {mismatches} of {count} lines differ; first: {first}")
    return f"verify: proctor and the python loop agree on all {count:,} lines of {log.name}"


# --- the report ----------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def report(
    lines: int, size: int, stats: dict, scale: dict | None, runs: int, floor: dict
) -> str:
    out = []
    out.append(
        f"proctor grade benchmark: {lines:,} outcome lines ({size / MIB:,.0f} MiB),"
        f" median of {runs} run(s), {platform.machine()} {os.cpu_count()} CPU(s)"
    )
    out.append("")
    head = f"{'contender':<24}{'wall s':>9}{'cpu s':>9}{'lines/s':>13}{'peak MiB':>10}   runs (wall s)"
    out.append(head)
    out.append("-" * len(head))
    for name, m in stats.items():
        rate = lines / m["wall"]
        walls = ", ".join(f"{w:.2f}" for w in m["walls"])
        out.append(
            f"{LABELS[name]:<24}{m['wall']:>9.2f}{m['cpu']:>9.2f}{rate:>13,.0f}"
            f"{m['peak_mib']:>10.1f}   {walls}"
        )
    out.append(
        f"peak = max RSS over the runs, by {floor['rss_method']}"
        f" (a no-op `true` reads {floor['peak_bytes'] / MIB:.1f} MiB this way)"
    )
    out.append("")
    out.append("targets (ratios of medians in this run; cpu-time ratio in brackets)")
    p = stats.get("proctor")
    if p and "python" in stats:
        py = stats["python"]
        ratio, cpu_ratio = py["wall"] / p["wall"], py["cpu"] / p["cpu"]
        ok = ratio >= TARGET_SPEEDUP_VS_PYTHON
        out.append(
            f"  proctor vs python loop      {ratio:6.2f}x faster  [{cpu_ratio:5.2f}x]"
            f"  target >= {TARGET_SPEEDUP_VS_PYTHON:.0f}x   {verdict(ok)}"
        )
    if p and "parse" in stats:
        pa = stats["parse"]
        ratio, cpu_ratio = p["wall"] / pa["wall"], p["cpu"] / pa["cpu"]
        ok = ratio <= TARGET_TIME_VS_PARSE
        out.append(
            f"  proctor time / parse time   {ratio:6.2f}x         [{cpu_ratio:5.2f}x]"
            f"  target <= {TARGET_TIME_VS_PARSE:.0f}x    {verdict(ok)}"
        )
    if p:
        ok = p["peak_mib"] < TARGET_PEAK_MIB
        out.append(
            f"  proctor peak memory         {p['peak_mib']:6.1f} MiB"
            f"                target < {TARGET_PEAK_MIB:.0f} MiB {verdict(ok)}"
        )
    one = stats.get("proctor1")
    if one:
        parts = []
        if "python" in stats:
            parts.append(f"{stats['python']['wall'] / one['wall']:.2f}x faster than the python loop")
        if "parse" in stats:
            parts.append(f"{one['wall'] / stats['parse']['wall']:.2f}x the parse time")
        out.append(f"  with one grading thread (--jobs 1): {', '.join(parts)} (for information)")
    if scale:
        ok = scale["peak_mib"] < TARGET_PEAK_MIB
        growth = scale["peak_mib"] / p["peak_mib"] if p else float("nan")
        out.append(
            f"  proctor at {scale['lines']:,} lines   {scale['peak_mib']:6.1f} MiB"
            f" ({growth:.2f}x the 1x peak; {scale['lines'] / scale['wall']:,.0f} lines/s)"
            f"  target < {TARGET_PEAK_MIB:.0f} MiB {verdict(ok)}"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--_measure"]:
        return measure_child(argv[1], argv[3:])

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000, help="outcome lines (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=7, help="generator seed (default 7)")
    parser.add_argument("--runs", type=int, default=3, help="runs per contender; the median is shown (default 3)")
    parser.add_argument("--scale", action="store_true", help="also run proctor on a 4x larger log (memory must stay flat)")
    parser.add_argument("--only", choices=sorted(LABELS), action="append", help="run only this contender (repeatable)")
    parser.add_argument("--verify-lines", type=int, default=20_000, help="lines of the proctor-vs-python agreement check (0: skip)")
    parser.add_argument("--no-build", action="store_true", help="use the binaries already in target/dist")
    parser.add_argument("--cargo", default=os.environ.get("CARGO", "cargo"))
    parser.add_argument("--out-dir", type=Path, default=BENCH / "out")
    parser.add_argument("--keep-results", action="store_true", help="keep the result files of the last run (about 1.1 KB a line for proctor)")
    parser.add_argument("--json", type=Path, help="also write the measurements as JSON here")
    args = parser.parse_args(argv)  # fmt: skip
    if args.lines < 1 or args.runs < 1:
        parser.error("--lines and --runs must be at least 1")

    out_dir = args.out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    if not args.no_build:
        build(args.cargo)
    bins = target_dir() / "dist"

    notes = []
    if args.verify_lines:
        notes.append(verify(bins, out_dir, args.verify_lines, args.seed))
        print(notes[-1], file=sys.stderr)

    log, tasks_yaml, tasks_json = generate(out_dir, args.lines, args.seed)
    commands = contenders(bins, log, tasks_yaml, tasks_json, out_dir)
    names = [n for n in LABELS if not args.only or n in args.only]
    print(f"timing {', '.join(names)} on {log.name}, {args.runs} run(s) each", file=sys.stderr)
    samples = run_all(commands, names, args.runs, out_dir, args.keep_results)
    notes += [f"sanity: {p}" for p in sanity(args.lines, samples)]
    stats = {name: medians(s) for name, s in samples.items()}

    scale = None
    if args.scale and "proctor" in names:
        big_lines = args.lines * 4
        big_log, _, _ = generate(out_dir, big_lines, args.seed)
        big = contenders(bins, big_log, tasks_yaml, tasks_json, out_dir)
        print(f"scale: proctor on {big_log.name}", file=sys.stderr)
        big_samples = run_all(big, ["proctor"], args.runs, out_dir, args.keep_results)
        scale = {"lines": big_lines, **medians(big_samples["proctor"])}

    if not args.keep_results:
        for name in RESULT_FILES.values():
            (out_dir / name).unlink(missing_ok=True)

    floor = measure(["true"], out_dir / "true_stdout.txt")
    text = report(args.lines, log.stat().st_size, stats, scale, args.runs, floor)
    print(text)
    for note in notes:
        print(note)
    if args.json:
        args.json.write_text(
            json.dumps({"lines": args.lines, "runs": args.runs, "stats": stats, "scale": scale,
                        "rss_floor_bytes": floor["peak_bytes"], "notes": notes},
                       indent=2) + "\n",  # fmt: skip
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
