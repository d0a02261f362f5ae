#!/usr/bin/env python3
"""Judge throughput of `proctor run`, `proctor grade` and `proctor judge` at default flags.

A mock OpenAI-compatible model on 127.0.0.1 answers every call after 100 ms. With
`--judge-jobs` calls in flight (default 20) the ideal is 20 / 0.1 s = 200 verdicts/s. Each
command judges the same number of rubric runs; the script prints verdicts/s, the fraction
of the ideal (target: at least 0.85 in each command) and, as a baseline measured in the
same run, the fraction that bare calls reach: 20 Python threads calling the mock in a loop.

    python3 bench/judge/commands_bench.py [--verdicts 200] [--runs 3] [--latency-ms 100]
                                          [--judge-jobs 20] [--no-build]

Standard library only. Only 127.0.0.1 is contacted.
"""

import argparse
import asyncio
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROCTOR = os.path.join(ROOT, "target", "dist", "proctor")
TARGET = 0.85


class MockModel:
    """Answers chat completions after `latency` seconds on 127.0.0.1, on one asyncio loop in
    its own thread (no thread per connection, so the mock itself costs little CPU on a busy
    machine); counts the calls in flight."""

    def __init__(self, latency):
        self.latency = latency
        self.in_flight = 0
        self.most = 0
        self.calls = 0
        self.loop = asyncio.new_event_loop()
        self.server = self.loop.run_until_complete(
            asyncio.start_server(self.serve, "127.0.0.1", 0, backlog=256))
        self.port = self.server.sockets[0].getsockname()[1]
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    def reset(self):
        # Read and written on the loop's thread only, but a reset between commands, when no
        # call is in flight, is safe from here.
        self.most = 0
        self.calls = 0

    def shutdown(self):
        self.loop.call_soon_threadsafe(self.loop.stop)

    async def serve(self, reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                body = await reader.readexactly(length)
                self.in_flight += 1
                self.calls += 1
                self.most = max(self.most, self.in_flight)
                await asyncio.sleep(self.latency)
                self.in_flight -= 1
                writer.write(answer(b"zqgood" in body))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


def answer(good):
    verdict = "PASS" if good else "FAIL"
    content = json.dumps({"reasoning": "checked", "verdict": verdict})
    body = json.dumps({
        "model": "mock",
        "choices": [{"message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 400, "completion_tokens": 30},
    }).encode()
    return (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def bare_calls(port, total, threads):
    """`total` calls from `threads` keep-alive connections; returns the wall time."""
    body = json.dumps({"model": "mock", "messages": [{"role": "user", "content": "zqgood"}]})
    share = [total // threads + (1 if i < total % threads else 0) for i in range(threads)]

    def worker(n):
        connection = http.client.HTTPConnection("127.0.0.1", port)
        for _ in range(n):
            connection.request("POST", "/v1/chat/completions", body,
                               {"content-type": "application/json"})
            connection.getresponse().read()
        connection.close()

    started = time.perf_counter()
    workers = [threading.Thread(target=worker, args=(n,)) for n in share]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.perf_counter() - started


def write_inputs(folder, verdicts):
    tasks = os.path.join(folder, "tasks.yaml")
    with open(tasks, "w") as f:
        f.write("- id: poem\n  input: write a poem\n  rubric: PASS if the poem is fine\n")
    log = os.path.join(folder, "log.jsonl")
    with open(log, "w") as f:
        for i in range(verdicts):
            answer = ("zqgood" if i % 2 == 0 else "zqbad") + f" poem {i}"
            f.write(json.dumps({"task": "poem", "attempt": i, "status": "final",
                                "answer": answer}) + "\n")
    return tasks, log


AGENT = "sh -c 'echo zqgood poem $PROCTOR_ATTEMPT'"


def commands(folder, tasks, log, verdicts, judge):
    """The three commands, each judging `verdicts` runs; `judge` needs kept sandboxes,
    which a `run --no-judge --keep` makes before it is timed."""
    keep = os.path.join(folder, "keep")
    results = os.path.join(folder, "kept.jsonl")
    return {
        "run": ([PROCTOR, "run", "--tasks", tasks, "--agent", AGENT,
                 "--attempts", str(verdicts), "--out", os.path.join(folder, "run.jsonl")]
                + judge, None),
        "grade": ([PROCTOR, "grade", "--tasks", tasks, "--outcomes", log,
                   "--out", os.path.join(folder, "graded.jsonl")] + judge, None),
        "judge": ([PROCTOR, "judge", "--tasks", tasks, "--results", results, "--keep", keep]
                  + judge,
                  [PROCTOR, "run", "--tasks", tasks, "--agent", AGENT, "--attempts",
                   str(verdicts), "--no-judge", "--keep", keep, "--out", results]),
    }


def timed(command, setup):
    if setup is not None:
        subprocess.run(setup, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - started
    # No gate is set, so anything but 0 is a failure of the command.
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[:2])} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verdicts", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--judge-jobs", type=int, default=20,
                        help="the ideal's calls in flight: proctor's default --judge-jobs")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--proctor", help="the binary (default the release build)")
    args = parser.parse_args()
    global PROCTOR
    PROCTOR = args.proctor or PROCTOR
    if not args.no_build:
        subprocess.run(["cargo", "build", "--profile", "dist", "-p", "proctor", "--bin", "proctor"],
                       cwd=ROOT, check=True)
    latency = args.latency_ms / 1000
    model = MockModel(latency)
    port = model.port
    # Default flags: only where the judge is; --judge-jobs and --jobs are left alone.
    judge = ["--judge-provider", "openai", "--judge-model", "mock",
             "--judge-base-url", f"http://127.0.0.1:{port}"]
    ideal = args.judge_jobs / latency
    folder = tempfile.mkdtemp(prefix="proctor-judge-bench-")
    try:
        tasks, log = write_inputs(folder, args.verdicts)
        contenders = commands(folder, tasks, log, args.verdicts, judge)
        times = {name: [] for name in ["bare calls"] + list(contenders)}
        most = {name: 0 for name in times}
        for run in range(args.runs):
            print(f"run {run + 1}/{args.runs}", file=sys.stderr)
            model.reset()
            times["bare calls"].append(bare_calls(port, args.verdicts, args.judge_jobs))
            most["bare calls"] = max(most["bare calls"], model.most)
            for name, (command, setup) in contenders.items():
                model.reset()
                elapsed = timed(command, setup)
                if model.calls != args.verdicts:
                    sys.exit(f"{name}: {model.calls} judge calls, expected {args.verdicts}")
                times[name].append(elapsed)
                most[name] = max(most[name], model.most)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        model.shutdown()
    print(f"{args.verdicts} verdicts per command, mock latency {args.latency_ms:.0f} ms, "
          f"ideal {ideal:.0f} verdicts/s at {args.judge_jobs} in flight; "
          f"median of {args.runs} runs, ratios per run in brackets")
    print(f"{'contender':<12} {'verdicts/s':>11} {'of ideal':>9} {'most in flight':>15}  "
          f"per run")
    failed = []
    for name, runs in times.items():
        rate = args.verdicts / statistics.median(runs)
        fractions = [args.verdicts / t / ideal for t in runs]
        print(f"{name:<12} {rate:>11.1f} {rate / ideal:>9.3f} {most[name]:>15}  "
              f"[{', '.join(f'{f:.3f}' for f in fractions)}]")
        if name != "bare calls" and min(fractions) < TARGET:
            failed.append(name)
    print(f"target: each command >= {TARGET} of the ideal in every run: "
          + ("met" if not failed else "missed by " + ", ".join(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
