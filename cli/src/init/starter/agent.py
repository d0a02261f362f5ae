#!/usr/bin/env python3
# A starter agent for proctor: the task as one JSON line on stdin, the sandbox as working
# directory, the outcome as one JSON object on stdout. Put your model and tools in solve().
import json
import sys


def solve(task_id, call):
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


task = json.loads(sys.stdin.readline())  # task_id, attempt, input, seed, step_cap, timeout_s
trajectory = []  # every tool call, in order: what proctor's rules grade
answer = solve(task["task_id"], lambda tool, **args: trajectory.append({"tool": tool, "args": args}))
print(json.dumps({"status": "final", "answer": answer, "trajectory": trajectory}))
