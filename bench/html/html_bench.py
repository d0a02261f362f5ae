#!/usr/bin/env python3
"""How large the HTML report is, and how long headless Chromium takes to open it.

Makes a results file of N attempts by two agents (the grade benchmark's generator, graded by
proctor with two labels), writes `proctor report --format html` of it, and prints:

- size: the page's bytes over the results file's bytes (target: at most about 1.5);
- open: seconds from navigation until the page's script has laid it out (it sets
  `<body data-ready="true">`), against a baseline page opened by the same browser in the same
  run: the same results embedded the same way, every attempt parsed with `JSON.parse` and
  nothing shown (the least an eager renderer does before it shows anything);
- filter and drill-down: seconds to show only failed attempts and to open one attempt;
- write: seconds for `proctor report --format html`, against `--format json` of the same file
  (which reads it once, where the page reads it twice and embeds every attempt).

Chromium is driven through the DevTools protocol over `--remote-debugging-pipe` (JSON
messages ended by a NUL byte on file descriptors 3 and 4), so the standard library is enough.

    python3 bench/html/html_bench.py                     # 100,000 attempts
    python3 bench/html/html_bench.py --attempts 10000    # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Chromium:
    """One headless Chromium and one page, spoken to over the DevTools pipe."""

    def __init__(self, binary: str):
        self.profile = tempfile.mkdtemp(prefix="proctor-bench-chromium-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def pipes() -> None:
            # Through free numbers first, so neither end is overwritten by the other; dup2
            # leaves the copies open across exec.
            reads, writes = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(reads, 3)
            os.dup2(writes, 4)

        self.process = subprocess.Popen(
            [
                binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-extensions", "--window-size=1280,2000", "--remote-debugging-pipe",
                f"--user-data-dir={self.profile}", "about:blank",
            ],
            preexec_fn=pipes,
            close_fds=False,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})
        attached = self.call("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        self.session = attached["sessionId"]
        self.call("Page.enable", {})
        self.call("Runtime.enable", {})

    def call(self, method: str, params: dict) -> dict:
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self.receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def receive(self) -> dict:
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def eval(self, expression: str):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, path: Path, ready: str, timeout: float = 300.0) -> float:
        """Seconds from navigation until `ready` is true in the page."""
        self.call("Page.navigate", {"url": "about:blank"})
        started = time.perf_counter()
        self.call("Page.navigate", {"url": path.resolve().as_uri()})
        while not self.eval(ready):
            if time.perf_counter() - started > timeout:
                raise RuntimeError(f"{path} not ready after {timeout} s")
            time.sleep(0.01)
        return time.perf_counter() - started

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def proctor_binary(explicit: str | None) -> str:
    if explicit:
        return explicit
    for profile in ("release", "debug"):
        candidate = ROOT / "target" / profile / "proctor"
        if candidate.exists():
            return str(candidate)
    sys.exit("no proctor binary: run `cargo build -p proctor` or pass --proctor")


def make_results(proctor: str, attempts: int, seed: int, out: Path) -> Path:
    """Two agents, half the attempts each, graded by proctor from generated outcome logs."""
    results = out / f"results-{attempts}-{seed}.jsonl"
    if results.exists():
        return results
    tasks = out / "tasks.yaml"
    parts = []
    for label, part_seed in (("agent-a", seed), ("agent-b", seed + 1)):
        log = out / f"outcomes-{label}-{attempts}.jsonl"
        subprocess.run(
            [sys.executable, str(ROOT / "bench/gen_outcomes.py"), "--lines", str(attempts // 2),
             "--seed", str(part_seed), "--out", str(log), "--tasks", str(tasks)],
            check=True,
        )
        part = out / f"results-{label}-{attempts}.jsonl"
        subprocess.run(
            [proctor, "grade", "--tasks", str(tasks), "--outcomes", str(log), "--label", label,
             "--out", str(part), "--format", "json"],
            check=True, stdout=subprocess.DEVNULL,
        )
        parts.append(part)
    with results.open("wb") as whole:
        for part in parts:
            whole.write(part.read_bytes())
    return results


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3, help="page opens per measurement (median)")
    parser.add_argument("--proctor", help="the proctor binary (default: target/release, else target/debug)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--out-dir", type=Path, default=ROOT / "bench/out/html")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    proctor = proctor_binary(args.proctor)

    results = make_results(proctor, args.attempts, args.seed, args.out_dir)
    page = args.out_dir / f"report-{args.attempts}.html"
    started = time.perf_counter()
    with page.open("wb") as html:
        subprocess.run([proctor, "report", str(results), "--format", "html"], check=True, stdout=html)
    write_seconds = time.perf_counter() - started
    # The baseline for writing: the same summary as JSON, which reads the file once.
    started = time.perf_counter()
    subprocess.run([proctor, "report", str(results), "--format", "json"], check=True, stdout=subprocess.DEVNULL)
    json_seconds = time.perf_counter() - started
    # The baseline: a page that embeds the results and parses every attempt, showing nothing.
    eager = args.out_dir / f"eager-{args.attempts}.html"
    with eager.open("wb") as out:
        out.write(b'<!DOCTYPE html><meta charset="utf-8"><body><script type="application/json" id="d">')
        out.write(results.read_bytes().replace(b"<", b"\\u003c"))
        out.write(b"</script><script>const rows = document.getElementById('d').textContent.split('\\n')"
                  b".filter(l => l).map(l => JSON.parse(l)); document.body.dataset.ready = 'true';</script>")

    browser = Chromium(args.chromium)
    try:
        parse_all = median([browser.open(eager, "document.body && document.body.dataset.ready === 'true'")
                            for _ in range(args.runs)])
        opens = [browser.open(page, "document.body && document.body.dataset.ready === 'true'") for _ in range(args.runs)]
        shown = browser.eval("document.getElementById('count').textContent")
        started = time.perf_counter()
        browser.eval("(() => { const s = document.getElementById('filter-outcome'); s.value = '1';"
                     " s.dispatchEvent(new Event('change')); })()")
        filter_seconds = time.perf_counter() - started
        failed = browser.eval("document.getElementById('count').textContent")
        started = time.perf_counter()
        browser.eval("document.querySelector('#attempts-list .attempt-row').click()")
        drill_seconds = time.perf_counter() - started
        steps = browser.eval("document.querySelectorAll('#detail .step').length")
    finally:
        browser.close()

    results_bytes = results.stat().st_size
    page_bytes = page.stat().st_size
    opened = median(opens)
    print(f"attempts                 {args.attempts:,} ({shown}; filtered: {failed})")
    print(f"results file             {results_bytes / 2**20:.1f} MiB")
    print(f"HTML report              {page_bytes / 2**20:.1f} MiB  ratio {page_bytes / results_bytes:.3f}x the results file")
    print(f"report written in        {write_seconds:.2f} s ({proctor})")
    print(f"baseline: --format json  {json_seconds:.2f} s  ratio {write_seconds / json_seconds:.2f}x the baseline")
    print(f"open in Chromium         {opened:.2f} s (median of {args.runs})")
    print(f"baseline: parse all      {parse_all:.2f} s  ratio {opened / parse_all:.2f}x the baseline")
    print(f"filter to failed         {filter_seconds:.2f} s")
    print(f"open one attempt         {drill_seconds:.3f} s ({steps} steps shown)")


if __name__ == "__main__":
    main()
