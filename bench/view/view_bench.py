#!/usr/bin/env python3
"""How fast `proctor view` lists a folder of results files and opens a large run, and how
much memory its server holds.

Generates (into a temporary folder) N results files of L `proctor.result/1` lines each, each
with the `R.run.json` record `proctor run` writes beside it, and one run of B attempts, then
measures, as wall time from the start of the `proctor view` process:

1. first open: `proctor view DIR --cache EMPTY` until `/api/runs` says `scanning: false` and
   lists every file (target: at most 10 s for 1,000 x 1,000);
2. cached open: the same again with the cache the first open filled (target: at most 2 s);
3. baselines measured in the same run: `proctor report F1 ... FN --mixed --duplicates all
   --format json` (one process summarising the same bytes once, no cache), `cat` of every
   file and `head -c 65536` of every file (the least a lister that recognises files by their
   content reads) to /dev/null;
4. the B-attempt run: `GET /run?id=` of it (target: at most 3 s) against `proctor report BIG
   --format html`, and the listing of its folder against `proctor report BIG --format json`;
5. memory: the server's peak resident memory (VmHWM of /proc/PID/status) after each phase, and
   for a folder of M files x L' lines against M files x 4L' lines (it should not grow).

    python3 bench/view/view_bench.py                 # 1,000 x 1,000, 100,000 attempts
    python3 bench/view/view_bench.py --quick         # a small smoke run
    PROCTOR_BIN=target/debug/proctor python3 bench/view/view_bench.py --quick

Standard library only. Without PROCTOR_BIN (or --proctor) it builds `cargo build --profile
dist -p proctor` and runs target/dist/proctor (`--no-build` skips the build).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
POLL = 0.05

# ---------------------------------------------------------------------------------------------
# Data: result lines shaped like those `proctor run` writes (the run of
# `fixtures/cluster/tasks.yaml` with `fixtures/agents/sum_agent.py`), with a two-call trajectory,
# an Anthropic usage object and a priced cost, as a run of a tool-calling agent writes them.

SUITES = ("refunds", "billing", "search", "support")
TOOLS = ("lookup_order", "check_eligibility", "refund", "send_email")
LABELS = ("baseline", "candidate", "v2", "v3", "gpt", "claude")

LINE = (
    '{"format":"proctor.result/1","task":"%(task)s","attempt":%(attempt)d,"label":"%(label)s",'
    '"passed":%(passed)s,"reasons":%(reasons)s,"diagnosis":%(diagnosis)s,"checks":%(checks)s,'
    '"status":"final","answer":"%(answer)s","tool_calls":2,'
    '"tools_used":["%(tool1)s","%(tool2)s"],'
    '"trajectory":[{"tool":"%(tool1)s","args":{"order_id":"A%(n)d"},"result":"ok"},'
    '{"tool":"%(tool2)s","args":{"order_id":"A%(n)d"}}],'
    '"trajectory_source":"reported","steps":3,"error":null,'
    '"usage":[{"provider":"anthropic","model":"claude-sonnet-4-6","input_tokens":%(tin)d,'
    '"output_tokens":%(tout)d}],'
    '"cost":{"usd":"%(usd)s","tokens":%(tokens)d,"unpriced_calls":0,"agent_usd":"%(usd)s",'
    '"priced_at":"%(started)s","models":[{"role":"agent","provider":"anthropic",'
    '"model":"claude-sonnet-4-6","calls":1,"input_tokens":%(tin)d,"output_tokens":%(tout)d,'
    '"usd":"%(usd)s","price_id":"anthropic/claude-sonnet-4-6@2026-02-17"}]},'
    '"timings":{"started_at":"%(started)s","duration_ms":%(ms)d},'
    '"task_digest":"%(digest)s","run_id":"%(run_id)s","seed":%(seed)d,'
    '"process":{"exit_code":0,"timed_out":false,"timeout_s":300.0,"stdout_bytes":%(out)d}}\n'
)
FAILED_CHECKS = (
    '[{"category":"outcome","check":"answer is \\"%(expected)s\\"","passed":false,"gating":true,'
    '"failure":"wrong answer","detail":"got \\"%(answer)s\\", expected \\"%(expected)s\\""}]'
)


def stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond:06d}000Z"


def write_run(path: Path, *, index: int, lines: int, tasks: int, labels: list[str], suite: int,
              start: datetime, rng: random.Random) -> None:
    """One results file of `lines` lines (every task, then the next attempt), and its record."""
    name = SUITES[suite]
    digest = "sha256:" + hashlib.sha256(f"{name} tasks".encode()).hexdigest()
    run_id = start.strftime("%Y%m%dT%H%M%SZ") + f"-{index:06x}"
    skill = {label: int((0.35 + 0.5 * rng.random()) * 1024) for label in labels}
    # Fields that depend only on the task, made once.
    per_task = []
    for task in range(1, tasks + 1):
        expected = str(task * 7 % 100)
        wrong = str(task * 7 % 100 + 1)
        per_task.append((f"{name}-{task:03d}", expected, wrong,
                         FAILED_CHECKS % {"expected": expected, "answer": wrong}, TOOLS[task % 2], task))
    out = []
    ms = int(start.timestamp() * 1000)
    seconds_text: dict[int, str] = {}
    k = 0
    attempt = 0
    while k < lines:
        tool2 = TOOLS[2 + attempt % 2]
        for task_name, expected, wrong, checks, tool1, n in per_task:
            for label in labels:
                if k == lines:
                    break
                bits = rng.getrandbits(64)
                passed = (bits & 1023) < skill[label]
                tin = 400 + (bits >> 10) % 3600
                tout = 50 + (bits >> 22) % 550
                sec = ms // 1000
                text = seconds_text.get(sec)
                if text is None:
                    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec))
                    seconds_text = {sec: text}
                started = f"{text}.{ms % 1000:03d}000000Z"
                out.append(LINE % {
                    "task": task_name, "attempt": attempt, "label": label,
                    "passed": "true" if passed else "false",
                    "reasons": "[]" if passed else '["wrong answer"]',
                    "diagnosis": "null" if passed else '"wrong_but_terminated"',
                    "checks": "[]" if passed else checks,
                    "answer": expected if passed else wrong, "tool1": tool1, "tool2": tool2,
                    "n": n, "tin": tin, "tout": tout, "tokens": tin + tout,
                    "usd": f"{(tin * 3 + tout * 15) / 1e6:.6f}", "started": started,
                    "ms": 300 + (bits >> 32) % 8700, "digest": digest, "run_id": run_id,
                    "seed": bits >> 12, "out": 20 + (bits >> 45) % 380,
                })
                ms += 50 + (bits >> 54) % 850
                k += 1
        attempt += 1
    path.write_text("".join(out))
    record = {
        "format": "proctor.run/1", "run_id": run_id, "results": path.name,
        "tasks": f"/srv/evals/{name}.yaml", "agents": labels, "planned": lines,
        "done_at_start": 0, "started_at": stamp(start), "shard": None, "keep": None,
        "pid": 4_000_000 + index,
    }
    path.with_name(path.name + ".run.json").write_text(json.dumps(record))


def _one_file(job: tuple) -> None:
    folder, i, files, lines, seed, weeks = job
    rng = random.Random(seed * 1_000_003 + i)
    first = datetime(2026, 10, 1, 8, 0, tzinfo=timezone.utc)
    suite = i % len(SUITES)
    labels = [LABELS[i % len(LABELS)]]
    if i % 3 == 0:
        labels.append(LABELS[(i + 1) % len(LABELS)])
    start = first + timedelta(weeks=weeks) * (i / max(files, 1)) + timedelta(seconds=rng.randrange(3600))
    sub = folder / SUITES[suite] / f"{start:%Y-%m-%d}"
    sub.mkdir(parents=True, exist_ok=True)
    write_run(sub / f"results-{i:05d}.jsonl", index=i, lines=lines, tasks=50, labels=labels,
              suite=suite, start=start, rng=rng)


def make_folder(folder: Path, files: int, lines: int, seed: int, weeks: float = 6.0) -> Path:
    """`files` runs spread over `weeks` weeks, of four suites, every third with two labels;
    made once for a given size and seed (a `.complete` file beside the folder says so)."""
    done = folder.with_name(folder.name + ".complete")
    if done.exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    jobs = [(folder, i, files, lines, seed, weeks) for i in range(files)]
    with concurrent.futures.ProcessPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(_one_file, jobs, chunksize=8))
    done.write_text("")
    return folder


def make_big(folder: Path, attempts: int, seed: int) -> Path:
    path = folder / "big.jsonl"
    done = folder.with_name(folder.name + ".complete")
    if done.exists():
        return path
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    write_run(path, index=999_999, lines=attempts, tasks=100, labels=["baseline", "candidate"],
              suite=0, start=datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc),
              rng=random.Random(seed))
    done.write_text("")
    return path


def results_files(folder: Path) -> list[str]:
    return sorted(str(p) for p in folder.rglob("*.jsonl"))


# ---------------------------------------------------------------------------------------------
# Measuring.

def timed(argv: list[str], stdout=subprocess.DEVNULL) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=stdout, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def status_kib(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


class View:
    """One `proctor view` server, timed from the moment it is started."""

    def __init__(self, proctor: str, paths: list[Path], cache: Path):
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            [proctor, "view", *map(str, paths), "--cache", str(cache)],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("http://"):
            self.stop()
            sys.exit(f"proctor view printed {line!r}, not its address")
        self.address = line
        self.base, query = line.split("/?", 1)
        self.token = query.split("token=", 1)[1]
        self.listening = time.perf_counter() - self.t0
        self.peak_rss = 0

    def get(self, path: str) -> bytes:
        sep = "&" if "?" in path else "?"
        with urllib.request.urlopen(f"{self.base}{path}{sep}token={self.token}", timeout=600) as r:
            return r.read()

    def wait_listed(self, files: int, limit: float = 600.0) -> tuple[float, dict]:
        """Seconds from start until the list is complete (polled every 50 ms), and the list."""
        runs: dict = {}
        while True:
            # `since` the last version: an unchanged list is answered in a few bytes.
            since = f"?since={runs['version']}" if "version" in runs else ""
            answer = json.loads(self.get(f"/api/runs{since}"))
            if not answer.get("unchanged"):
                runs = answer
            self.peak_rss = max(self.peak_rss, status_kib(self.proc.pid, "VmRSS"))
            if not runs.get("scanning", True) and len(runs.get("runs", [])) >= files:
                return time.perf_counter() - self.t0, runs
            if time.perf_counter() - self.t0 > limit:
                self.stop()
                sys.exit(f"the list was not complete after {limit:.0f} s: "
                         f"{len(runs.get('runs', []))} of {files} runs, scanning={runs.get('scanning')}")
            time.sleep(POLL)

    def hwm_mib(self) -> float:
        return status_kib(self.proc.pid, "VmHWM") / 1024

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def open_folder(proctor: str, folder: Path, files: int, cache: Path) -> dict:
    view = View(proctor, [folder], cache)
    try:
        seconds, runs = view.wait_listed(files)
        return {"seconds": seconds, "listening": view.listening, "hwm_mib": view.hwm_mib(),
                "runs": len(runs["runs"]), "list_bytes": len(json.dumps(runs))}
    finally:
        view.stop()


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def build(args) -> str:
    given = args.proctor or os.environ.get("PROCTOR_BIN")
    if given:
        return str(Path(given).resolve())
    if not args.no_build:
        subprocess.run(["cargo", "build", "--profile", "dist", "-p", "proctor", "--bin", "proctor"],
                       cwd=ROOT, check=True)
    binary = ROOT / "target" / "dist" / "proctor"
    if not binary.exists():
        sys.exit(f"no {binary}: build it or set PROCTOR_BIN")
    return str(binary)


def say(*a) -> None:
    print(*a, file=sys.stderr, flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--files", type=int, default=1000)
    p.add_argument("--lines", type=int, default=1000)
    p.add_argument("--big", type=int, default=100_000, help="attempts of the large run")
    p.add_argument("--memory-files", type=int, default=250)
    p.add_argument("--memory-lines", type=int, default=1000, help="the small side; the other is 4x")
    p.add_argument("--no-memory", action="store_true", help="skip the 1x/4x memory folders")
    p.add_argument("--runs", type=int, default=3, help="rounds of the cached open, the baselines and the run page")
    p.add_argument("--quick", action="store_true", help="20 x 200, 5,000 attempts, 10 x 100/400, 1 round")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--proctor", help="the binary (else PROCTOR_BIN, else target/dist/proctor)")
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--data-dir", default=str(ROOT / "bench" / "out" / "view"),
                   help="where the generated folders are made and kept (default bench/out/view)")
    p.add_argument("--json", help="also write the figures as JSON")
    args = p.parse_args()
    if args.quick:
        args.files, args.lines, args.big = 20, 200, 5000
        args.memory_files, args.memory_lines, args.runs = 10, 100, 1

    proctor = build(args)
    data = Path(args.data_dir).resolve()
    work = Path(tempfile.mkdtemp(prefix="proctor-view-bench-"))  # the summary caches
    fig: dict = {"proctor": proctor, "files": args.files, "lines": args.lines, "big": args.big,
                 "loadavg_before": Path("/proc/loadavg").read_text().split()[:3]}
    try:
        say(f"data in {data} (made once for each size and seed) ...")
        t = time.perf_counter()
        many = make_folder(data / f"many-{args.files}x{args.lines}-s{args.seed}", args.files, args.lines, args.seed)
        big_dir = data / f"big-{args.big}-s{args.seed}"
        big = make_big(big_dir, args.big, args.seed + 1)
        memory = []
        if not args.no_memory:
            for factor in (1, 4):
                lines = args.memory_lines * factor
                memory.append((factor, lines, make_folder(
                    data / f"mem-{args.memory_files}x{lines}-s{args.seed}", args.memory_files, lines, args.seed + factor)))
        files = results_files(many)
        assert len(files) == args.files, (len(files), args.files)
        fig["bytes"] = sum(os.path.getsize(f) for f in files)
        fig["big_bytes"] = big.stat().st_size
        say(f"  {fig['bytes'] / 2**20:.0f} MiB + {fig['big_bytes'] / 2**20:.0f} MiB, {time.perf_counter() - t:.1f} s")

        # (1) first open, then (2) cached opens, each round with its baselines beside it. The
        # files are read once first, so every contender finds them in the page cache.
        timed(["cat", *files])
        say("first open (empty cache) ...")
        cache = work / "cache-many"
        first = open_folder(proctor, many, args.files, cache)
        fig["first_open"] = first
        say(f"  {first['seconds']:.2f} s, peak {first['hwm_mib']:.1f} MiB")
        cached, report, cat, head = [], [], [], []
        for r in range(args.runs):
            say(f"round {r + 1}: cached open, report, cat, head ...")
            cached.append(open_folder(proctor, many, args.files, cache))
            report.append(timed([proctor, "report", *files, "--mixed", "--duplicates", "all", "--format", "json"]))
            cat.append(timed(["cat", *files]))
            head.append(timed(["head", "-qc", "65536", *files]))
            say(f"  cached {cached[-1]['seconds']:.2f} s, report {report[-1]:.2f} s, "
                f"cat {cat[-1]:.2f} s, head {head[-1]:.2f} s")
        fig["cached_open"] = {"seconds": [c["seconds"] for c in cached],
                              "listening": [c["listening"] for c in cached],
                              "hwm_mib": max(c["hwm_mib"] for c in cached)}
        fig["report_all"], fig["cat_all"], fig["head_all"] = report, cat, head

        # (4) the large run: listing, then the page and `report --format html` in turns.
        say(f"large run ({args.big} attempts) ...")
        timed(["cat", str(big)])
        view = View(proctor, [big_dir], work / "cache-big")
        pages, htmls = [], []
        try:
            listed, runs = view.wait_listed(1)
            fig["big_list_seconds"] = listed
            fig["big_hwm_listed"] = view.hwm_mib()
            run_id = runs["runs"][0]["id"]
            for r in range(args.runs):
                t = time.perf_counter()
                page = view.get(f"/run?id={urllib.parse.quote(run_id)}")
                pages.append(time.perf_counter() - t)
                htmls.append(timed([proctor, "report", str(big), "--format", "html"]))
                say(f"  page {pages[-1]:.2f} s ({len(page) / 2**20:.1f} MiB), peak {view.hwm_mib():.1f} MiB; "
                    f"report --format html {htmls[-1]:.2f} s")
            fig["big_page_seconds"] = pages
            fig["big_page_bytes"] = len(page)
            fig["big_hwm_page"] = view.hwm_mib()
            time.sleep(1)
            fig["big_rss_after_page"] = status_kib(view.proc.pid, "VmRSS") / 1024
        finally:
            view.stop()
        fig["big_report_html"] = htmls
        fig["big_report_json"] = [timed([proctor, "report", str(big), "--format", "json"]) for _ in range(args.runs)]

        # (5) memory against the folder's size.
        for factor, lines, folder in memory:
            say(f"memory: {args.memory_files} x {lines} ...")
            timed(["cat", *results_files(folder)])
            m = open_folder(proctor, folder, args.memory_files, work / f"cache-mem{factor}")
            m["lines"] = lines
            fig[f"memory_{factor}x"] = m
            say(f"  {m['seconds']:.2f} s, peak {m['hwm_mib']:.1f} MiB")
        fig["loadavg_after"] = Path("/proc/loadavg").read_text().split()[:3]
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print_table(fig, args)
    if args.json:
        Path(args.json).write_text(json.dumps(fig, indent=2))


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def print_table(f: dict, args) -> None:
    n, lines = f["files"], f["lines"]
    cached = median(f["cached_open"]["seconds"])
    report = median(f["report_all"])
    cat, head = median(f["cat_all"]), median(f["head_all"])
    page, html, rjson = median(f["big_page_seconds"]), median(f["big_report_html"]), median(f["big_report_json"])
    first = f["first_open"]["seconds"]
    print(f"proctor: {f['proctor']}")
    print(f"data: {n} files x {lines} lines ({f['bytes'] / 2**20:.0f} MiB); "
          f"one run of {f['big']} attempts ({f['big_bytes'] / 2**20:.0f} MiB)")
    print(f"load average before {' '.join(f['loadavg_before'])}, after {' '.join(f['loadavg_after'])}")
    print()
    print(f"{'measure':44} {'seconds':>9}  rounds")
    rows = [
        ("view, first open (empty cache)", first, [first]),
        ("view, cached open", cached, f["cached_open"]["seconds"]),
        ("  of which: until it listens", median(f["cached_open"]["listening"]), f["cached_open"]["listening"]),
        ("report --mixed --format json, all files", report, f["report_all"]),
        ("cat of all files", cat, f["cat_all"]),
        ("head -c 64KiB of all files", head, f["head_all"]),
        (f"view, list the {f['big']}-attempt run's folder", f["big_list_seconds"], [f["big_list_seconds"]]),
        (f"view, GET /run of it", page, f["big_page_seconds"]),
        ("report BIG --format html", html, f["big_report_html"]),
        ("report BIG --format json", rjson, f["big_report_json"]),
    ]
    for name, v, rounds in rows:
        print(f"{name:44} {v:9.3f}  {', '.join(f'{x:.3f}' for x in rounds)}")
    print()
    print("ratios (medians of this run)")
    print(f"  first open / report of all files       {first / report:6.2f}x")
    print(f"  cached open / report of all files      {cached / report:6.2f}x")
    print(f"  cached open / head of all files        {cached / head:6.2f}x")
    print(f"  run page / report --format html        {page / html:6.2f}x")
    print(f"  large run's listing / report json      {f['big_list_seconds'] / rjson:6.2f}x")
    print()
    print("peak resident memory of the server (VmHWM)")
    mem = [
        (f"{n} x {lines}, first open", f["first_open"]["hwm_mib"], ""),
        (f"{n} x {lines}, cached open", f["cached_open"]["hwm_mib"], ""),
        (f"{f['big']}-attempt run, listed", f["big_hwm_listed"], ""),
        (f"{f['big']}-attempt run, page served", f["big_hwm_page"],
         f"(resident 1 s after: {f['big_rss_after_page']:.1f} MiB)"),
    ]
    growth = None
    if "memory_1x" in f:
        m1, m4 = f["memory_1x"], f["memory_4x"]
        growth = m4["hwm_mib"] / m1["hwm_mib"]
        mem.append((f"{args.memory_files} x {m1['lines']}, first open", m1["hwm_mib"], f"({m1['seconds']:.2f} s)"))
        mem.append((f"{args.memory_files} x {m4['lines']}, first open", m4["hwm_mib"],
                    f"({m4['seconds']:.2f} s)  {growth:.2f}x the peak above for 4x the lines"))
    for name, mib, note in mem:
        print(f"  {name:40} {mib:8.1f} MiB {note}")
    print()
    scale = "" if (n, lines) == (1000, 1000) and f["big"] == 100_000 else "  (not the spec's sizes)"
    print(f"targets{scale}")
    print(f"  first open <= 10 s        {first:6.2f} s  {verdict(first <= 10)}")
    print(f"  cached open <= 2 s        {cached:6.2f} s  {verdict(cached <= 2)}")
    print(f"  run page <= 3 s           {page:6.2f} s  {verdict(page <= 3)}")
    if growth is not None:
        print(f"  memory flat in the lines  {growth:6.2f}x  {verdict(growth <= 1.25)}  (<= 1.25x for 4x the lines)")


if __name__ == "__main__":
    main()
