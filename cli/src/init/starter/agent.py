#!/usr/bin/env python3
"""A starter agent that follows proctor's protocol: one JSON line on stdin (task_id, attempt,
input, seed, step_cap, timeout_s), the sandbox as working directory, and the outcome as one
JSON object on stdout. Replace solve() with calls to your model and your tools."""
import json
import sys


def solve(task_id, calls):
    def call(tool, **args):  # every tool call goes into the trajectory proctor grades
        calls.append({"tool": tool, "args": args})

    if task_id == "add":
        call("calculator", expr="2+3")
        return "5"
    if task_id == "capital":
        return "Paris."
    if task_id == "count_words":
        call("read_file", path="notes.txt")
        return f"{len(open('notes.txt').read().split())} words"
    if task_id == "summarise_inbox":
        call("read_file", path="inbox.txt")
        lines = [line for line in open("inbox.txt").read().splitlines() if line.strip()]
        call("write_file", path="summary.md")
        open("summary.md", "w").write("# Summary\n\n" + "".join(f"- {line}\n" for line in lines))
        call("write_file", path="report.json")
        json.dump({"items": len(lines), "status": "done"}, open("report.json", "w"))
        return "summarised"
    if task_id == "polite_reply":
        call("write_file", path="reply.txt")
        open("reply.txt", "w").write("Thank you for writing to us. Your refund is on its way.\n")
        return "replied"
    return "I do not know this task"


request = json.loads(sys.stdin.readline())
trajectory = []
answer = solve(request["task_id"], trajectory)
print(json.dumps({"status": "final", "answer": answer, "trajectory": trajectory}))
