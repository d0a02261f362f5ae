#!/usr/bin/env python3
"""The baseline `proctor grade` is measured against: a plain Python json-per-line loop.

It reads an outcome log one line at a time with `json.loads`, grades each outcome with the
same deterministic checks as proctor (DESIGN 3.2 and 3.3, restricted to what the refund
suite uses), writes one result JSON line per outcome and prints a JSON summary with the
lines per second it reached. Standard library only, so it reads the task file as JSON
(`bench/gen_outcomes.py --tasks-json`).

Checks, in reason order, with proctor's reason texts:
  not final / wrong answer (lowercase, trim, collapse whitespace, strip trailing . and !) /
  over budget / forbidden tool: T / rule: ... (`before` with `same`, `at_most` with `per`,
  `never`, `sequence`); an agent error replaces every other reason (`error: Type`).
Failed runs get a diagnosis bucket (DESIGN 3.5).

The result line is deliberately leaner than proctor's `proctor.result/1` line (no `checks`
list, no echoed trajectory or usage): that favours the baseline, so a ratio measured against
it is conservative.

    python3 bench/python_baseline.py --tasks bench/out/tasks.json \
        --outcomes bench/out/outcomes.jsonl --out bench/out/python_results.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

FINAL_ALIASES = {"final": "final", "done": "final", "completed": "final"}
STATUSES = {"final", "gave_up", "hit_cap", "timeout", "error"}
LOOP_LENGTH = 4
REPORT_STUCK = "report_stuck"


def normalise(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".!")


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def canonical(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


class Task:
    __slots__ = ("id", "expected", "max_tool_calls", "forbidden", "rules", "step_cap")

    def __init__(self, raw: dict):
        self.id = str(raw.get("id", raw.get("name")))
        expected = raw.get("expected", raw.get("expected_answer"))
        if expected is not None and not isinstance(expected, str):
            expected = json.dumps(expected)
        self.expected = None if expected is None else normalise(expected)
        self.max_tool_calls = raw.get("max_tool_calls")
        self.forbidden = sorted(raw.get("forbidden_tools") or [])
        self.step_cap = raw.get("step_cap")
        self.rules = []
        for rule in raw.get("rules") or []:
            if "before" in rule:
                same = rule.get("same")
                self.rules.append(("before", rule["before"], rule["requires"], same))
            elif "at_most" in rule:
                per_args = rule.get("per") == "args"
                self.rules.append(("at_most", int(rule["at_most"]), rule["tool"], per_args))
            elif "never" in rule:
                self.rules.append(("never", rule["never"]))
            elif "sequence" in rule:
                self.rules.append(("sequence", list(rule["sequence"])))
            else:
                raise ValueError(f"task {self.id}: unsupported rule {rule}")


def comparison_key(args, same):
    if same == "args":
        return canonical(args)
    values = []
    for key in same:
        if not isinstance(args, dict) or key not in args:
            return None
        values.append(args[key])
    return canonical(values)


def render(args, same) -> str:
    if same == "args":
        return compact(args)
    get = args.get if isinstance(args, dict) else (lambda _k: None)
    return compact([get(key) for key in same])


def violation(rule, steps) -> str | None:
    kind = rule[0]
    if kind == "before":
        _, tool, requires, same = rule
        seen = False
        keys = set()
        for index, (name, args) in enumerate(steps):
            if name == tool:
                if same is None:
                    ok = seen
                else:
                    key = comparison_key(args, same)
                    ok = key is not None and key in keys
                if not ok:
                    if same is None:
                        return f"{tool} at step {index + 1} has no earlier {requires}"
                    shown = render(args, same)
                    return (
                        f"{tool} {shown} at step {index + 1} has no earlier {requires} {shown}"
                    )
            if name == requires:
                seen = True
                if same is not None:
                    key = comparison_key(args, same)
                    if key is not None:
                        keys.add(key)
        return None
    if kind == "at_most":
        _, most, tool, per_args = rule
        calls: dict[str, int] = {}
        for index, (name, args) in enumerate(steps):
            if name != tool:
                continue
            key = canonical(args) if per_args else ""
            calls[key] = calls.get(key, 0) + 1
            if calls[key] > most:
                if per_args:
                    return (
                        f"{tool} {compact(args)} called more than {most} times at step {index + 1}"
                    )
                return f"{tool} called more than {most} times at step {index + 1}"
        return None
    if kind == "never":
        for index, (name, _) in enumerate(steps):
            if name == rule[1]:
                return f"{rule[1]} is never allowed, called at step {index + 1}"
        return None
    if kind == "sequence":
        tools = rule[1]
        matched, last = 0, None
        for index, (name, _) in enumerate(steps):
            if matched < len(tools) and name == tools[matched]:
                matched += 1
                last = index + 1
        if matched == len(tools):
            return None
        text = f"sequence {' -> '.join(tools)}: {tools[matched]} not found"
        return text if last is None else f"{text} after step {last}"
    raise ValueError(kind)


def parse_steps(trajectory) -> list[tuple[str, object]]:
    steps = []
    for index, item in enumerate(trajectory or []):
        if isinstance(item, dict) and isinstance(item.get("tool"), str):
            steps.append((item["tool"], item.get("args")))
        elif isinstance(item, list) and len(item) == 2 and isinstance(item[0], str):
            steps.append((item[0], item[1]))
        else:
            raise ValueError(f"field `trajectory[{index}]`: a step is an object or a pair")
    return steps


def grade(task: Task, record: dict) -> dict:
    raw_status = record.get("status")
    if raw_status is None:
        status = None
    else:
        lowered = raw_status.strip().lower()
        status = FINAL_ALIASES.get(lowered, lowered)
        if status not in STATUSES:
            raise ValueError(f"field `status`: unknown status {raw_status!r}")
    answer = record.get("answer")
    if answer is not None and not isinstance(answer, str):
        answer = json.dumps(answer, separators=(",", ":"))
    steps = parse_steps(record.get("trajectory"))
    tool_calls = record.get("tool_calls")
    if tool_calls is None:
        tool_calls = len(steps)
    turns = record.get("steps")
    if turns is None:
        turns = len(steps)
    tools_used = record.get("tools_used")
    if tools_used is None:
        tools_used = list(dict.fromkeys(name for name, _ in steps))
    error = record.get("error")
    if isinstance(error, str):
        error = {"type": error}
    used = set(tools_used)
    used.update(name for name, _ in steps)

    if error is not None or status == "error":
        kind = (error or {}).get("type")
        if not isinstance(kind, str) or not kind.strip():
            kind = "unknown"
        reasons = [f"error: {kind}"]
    else:
        reasons = []
        if status != "final":
            reasons.append("not final")
        if task.expected is not None and (answer is None or normalise(answer) != task.expected):
            reasons.append("wrong answer")
        if task.max_tool_calls is not None and tool_calls > task.max_tool_calls:
            reasons.append("over budget")
        for tool in task.forbidden:
            if tool in used:
                reasons.append(f"forbidden tool: {tool}")
        for rule in task.rules:
            what = violation(rule, steps)
            if what is not None:
                reasons.append(f"rule: {what}")
    passed = not reasons

    diagnosis = None
    if not passed:
        if error is not None or status == "error":
            diagnosis = "error"
        elif status in ("hit_cap", "timeout") or (
            task.step_cap is not None and turns >= task.step_cap
        ):
            diagnosis = "hit_cap"
        elif len(steps) >= LOOP_LENGTH and len({n for n, _ in steps[-LOOP_LENGTH:]}) == 1:
            diagnosis = "looping"
        elif status == "gave_up" or REPORT_STUCK in used:
            diagnosis = "graceful_giveup"
        else:
            diagnosis = "wrong_but_terminated"

    usage = record.get("usage") or []
    if isinstance(usage, dict):
        usage = [usage]
    tokens = 0
    for item in usage:
        for key in (
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ):
            tokens += item.get(key) or 0

    return {
        "passed": passed,
        "reasons": reasons,
        "diagnosis": diagnosis,
        "status": status,
        "answer": answer,
        "tool_calls": tool_calls,
        "tools_used": tools_used,
        "steps": turns,
        "tokens": tokens,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=Path, required=True, help="task file (JSON list)")
    parser.add_argument("--outcomes", type=Path, required=True, help="outcome log (JSONL)")
    parser.add_argument("--out", type=Path, help="result lines (JSONL); default: none")
    args = parser.parse_args(argv)

    tasks = {t.id: t for t in map(Task, json.loads(args.tasks.read_text(encoding="utf-8")))}
    started = time.perf_counter()
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    next_attempt: dict[str, int] = {}
    per_task: dict[str, dict] = {}
    lines = graded = passed = bad = 0
    dumps = json.dumps
    with open(args.outcomes, encoding="utf-8") as log:
        for number, text in enumerate(log, start=1):
            if not text.strip():
                continue
            lines += 1
            try:
                record = json.loads(text)
                if not isinstance(record, dict):
                    raise ValueError("expected a JSON object")
                name = record.get("task", record.get("task_id"))
                task = tasks.get(str(name))
                if task is None:
                    raise ValueError(f"task `{name}` is not in the suite")
                result = grade(task, record)
            except ValueError as e:  # json.JSONDecodeError is a ValueError
                bad += 1
                print(f"{args.outcomes}:{number}: {e}", file=sys.stderr)
                continue
            attempt = record.get("attempt", record.get("run"))
            if attempt is None:
                attempt = next_attempt.get(task.id, 0)
            next_attempt[task.id] = max(next_attempt.get(task.id, 0), attempt + 1)
            graded += 1
            tally = per_task.setdefault(task.id, {"attempts": 0, "passed": 0, "reasons": {}})
            tally["attempts"] += 1
            if result["passed"]:
                passed += 1
                tally["passed"] += 1
            for reason in result["reasons"]:
                tally["reasons"][reason] = tally["reasons"].get(reason, 0) + 1
            if out is not None:
                line = {"task": task.id, "attempt": attempt}
                line.update(result)
                out.write(dumps(line) + "\n")
    if out is not None:
        out.close()
    elapsed = time.perf_counter() - started
    summary = {
        "lines": lines,
        "graded": graded,
        "passed": passed,
        "bad_lines": bad,
        "pass_rate": passed / graded if graded else None,
        "tasks": len(per_task),
        "seconds": round(elapsed, 3),
        "lines_per_second": round(lines / elapsed) if elapsed > 0 else None,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
