#!/usr/bin/env python3
"""Benchmarks for traces as evidence, each against a baseline measured in the same run:

1. The OTLP receiver of `proctor run`: spans decoded and attributed per second on one core
   (`taskset -c 0`; the client runs on another core), against a bare protobuf decode of the
   same request body (`cli/examples/otlp_decode_baseline.rs`) on the same core. Target:
   100,000 spans per second.
2. `proctor grade --traces` on 1,000,000 spans: peak memory (target: under 64 MiB) and time,
   against a bare serde_json parse of the same lines (`cli/examples/parse_baseline.rs`).

    python3 bench/traces/traces_bench.py [--spans-per-request 1000] [--requests 300]
                                          [--grade-spans 1000000] [--no-build]
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "bench", "out", "traces")
RELEASE = os.path.join(ROOT, "target", "dist")
# The task the generated traces are graded against (its rules pass half of them).
TASKS = os.path.join(ROOT, "bench", "traces", "tasks.yaml")


def log(message):
    print(message, file=sys.stderr, flush=True)


def pinned(core, command):
    return (["taskset", "-c", str(core)] if shutil.which("taskset") else []) + command


# Runs a command as the only child of a fresh Python, so its peak resident size is not mixed
# with the build's or another benchmark's: prints the child's ru_maxrss (KiB) on stderr's last line.
MEASURE = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
           "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(done.returncode)")


def peak_rss_mib(command):
    """Runs command; returns (seconds, peak resident MiB, stdout)."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", MEASURE] + command, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        sys.exit(f"{command[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    kib = int(done.stderr.strip().splitlines()[-1])
    return seconds, kib / 1024, done.stdout


def receiver(args):
    body = os.path.join(OUT, f"body-{args.spans_per_request}.pb")
    subprocess.run([os.path.join(RELEASE, "examples", "otlp_decode_baseline"), "write", body,
                    str(args.spans_per_request)], check=True)
    total = args.spans_per_request * args.requests
    baseline = float(subprocess.run(
        pinned(0, [os.path.join(RELEASE, "examples", "otlp_decode_baseline"), "decode", body, str(args.requests)]),
        check=True, capture_output=True, text=True).stdout)
    work = tempfile.mkdtemp(prefix="receiver-", dir=OUT)
    tasks = os.path.join(work, "tasks.yaml")
    with open(tasks, "w") as out:
        out.write("- {id: bench, input: flood, max_tool_calls: 1000000000, timeout_s: 600}\n")
    results = os.path.join(work, "results.jsonl")
    agent = f"python3 {os.path.join(ROOT, 'bench', 'traces', 'flood_agent.py')} {body} {args.requests}"
    env = dict(os.environ, BENCH_CLIENT_CORE="1")
    subprocess.run(pinned(0, [os.path.join(RELEASE, "proctor"), "run", "--tasks", tasks, "--agent", agent,
                              "--jobs", "1", "--trace-grace", "0.1", "--out", results]),
                   check=True, capture_output=True, env=env)
    line = json.loads(open(results).readline())
    if line.get("error"):
        sys.exit(f"the flood agent failed: {line['error']} {line.get('process')}")
    seconds = float(line["answer"])
    measured = total / seconds
    shutil.rmtree(work)
    return {"spans": total, "spans_per_request": args.spans_per_request, "receiver_spans_per_s": round(measured),
            "bare_decode_spans_per_s": round(baseline), "ratio_to_bare_decode": round(measured / baseline, 4),
            "target_spans_per_s": 100_000, "target_met": measured >= 100_000}


def trace_file(path, spans, seed=7):
    """OTLP JSON lines: traces of 10 spans in two lines of 5, children before the root.
    Every other trace refunds before checking, breaking the rules of TASKS, so half of the
    attempts fail and half pass."""
    rng = random.Random(seed)
    with open(path, "w") as out:
        for trace in range(spans // 10):
            trace_id = f"{trace + 1:032x}"
            root = f"{(trace << 8) + 1:016x}"
            violation = trace % 2 == 0
            children = []
            for index in range(9):
                start = 1_764_000_000_000_000_000 + trace * 1000 + index
                if index % 3 == 0:
                    attributes = [("gen_ai.operation.name", "chat"), ("gen_ai.provider.name", "openai"),
                                  ("gen_ai.response.model", "gpt-4o-mini")]
                    numbers = [("gen_ai.usage.input_tokens", 100 + rng.randrange(50)), ("gen_ai.usage.output_tokens", 20)]
                else:
                    tool = "refund" if index == 8 or (violation and index == 1) else "check_eligibility"
                    attributes = [("gen_ai.operation.name", "execute_tool"), ("gen_ai.tool.name", tool),
                                  ("gen_ai.tool.call.arguments", json.dumps({"order_id": f"A{trace % 50}"}))]
                    numbers = []
                children.append({
                    "traceId": trace_id, "spanId": f"{(trace << 8) + index + 2:016x}", "parentSpanId": root,
                    "name": attributes[0][1], "kind": 1, "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 1),
                    "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes]
                    + [{"key": k, "value": {"intValue": str(v)}} for k, v in numbers]})
            root_span = {"traceId": trace_id, "spanId": root, "name": "invoke_agent refund_agent", "kind": 1,
                         "startTimeUnixNano": "1764000000000000000", "endTimeUnixNano": "1764000000000009999",
                         "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}},
                                        {"key": "final_result", "value": {"stringValue": "refunded"}}]}
            resource_ = {"attributes": [{"key": "proctor.task_id", "value": {"stringValue": "refund_traced"}}]}
            for part in (children[:5], children[5:] + [root_span]):
                document = {"resourceSpans": [{"resource": resource_, "scopeSpans": [{"spans": part}]}]}
                out.write(json.dumps(document, separators=(",", ":")) + "\n")


def grade_memory(args):
    path = os.path.join(OUT, f"traces-{args.grade_spans}.jsonl")
    if not os.path.exists(path):
        log(f"generating {path}")
        trace_file(path + ".tmp", args.grade_spans)
        os.replace(path + ".tmp", path)
    parse_s, parse_mib, _ = peak_rss_mib([os.path.join(RELEASE, "examples", "parse_baseline"), path])
    results = os.path.join(OUT, "graded.jsonl")
    grade_s, grade_mib, stdout = peak_rss_mib([os.path.join(RELEASE, "proctor"), "grade", "--tasks", TASKS,
                                               "--traces", path, "--out", results, "--format", "json"])
    summary = json.loads(stdout)
    os.remove(results)
    if not 0 < summary["passed"] < summary["attempts"]:
        sys.exit(f"expected passing and failing attempts, got {summary['passed']} of {summary['attempts']} passed")
    return {"spans": args.grade_spans, "attempts": summary["attempts"], "passed": summary["passed"],
            "grade_seconds": round(grade_s, 3), "parse_baseline_seconds": round(parse_s, 3),
            "time_ratio_to_parse": round(grade_s / parse_s, 3), "peak_mib": round(grade_mib, 1),
            "parse_baseline_peak_mib": round(parse_mib, 1), "target_peak_mib": 64, "target_met": grade_mib < 64}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--spans-per-request", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--grade-spans", type=int, default=1_000_000)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--json", help="also write the measurements here")
    args = parser.parse_args()
    os.makedirs(OUT, exist_ok=True)
    if not args.no_build:
        log("building release binaries")
        subprocess.run(["cargo", "build", "--profile", "dist", "-p", "proctor", "--bin", "proctor", "--example",
                        "otlp_decode_baseline", "--example", "parse_baseline"], cwd=ROOT, check=True)
    measured = {"receiver": receiver(args), "grade_traces": grade_memory(args)}
    r, g = measured["receiver"], measured["grade_traces"]
    print(f"OTLP receiver, one core: {r['receiver_spans_per_s']:,} spans/s "
          f"({r['spans']:,} spans in requests of {r['spans_per_request']}); bare protobuf decode "
          f"{r['bare_decode_spans_per_s']:,} spans/s; ratio {r['ratio_to_bare_decode']:.3f}; "
          f"target 100,000 spans/s {'met' if r['target_met'] else 'NOT met'}")
    print(f"grade --traces, {g['spans']:,} spans ({g['attempts']:,} traces, {g['passed']:,} passed): "
          f"{g['grade_seconds']} s, peak "
          f"{g['peak_mib']} MiB; serde_json parse of the same lines {g['parse_baseline_seconds']} s, peak "
          f"{g['parse_baseline_peak_mib']} MiB; time ratio {g['time_ratio_to_parse']}; target under 64 MiB "
          f"{'met' if g['target_met'] else 'NOT met'}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(measured, out, indent=2)


if __name__ == "__main__":
    main()
