#!/usr/bin/env python3
"""A tool call served by proctor over MCP against a bare loopback HTTP echo of the same size
(DESIGN 15: at most 2x).

Builds the dist profile (`proctor` and the `mcp_bench` example), runs `proctor run` on a
task whose `get_order` tool has a canned response, with the example as the agent. The agent
times CALLS requests per round and side, ROUNDS rounds, the sides in turn: the served tool
call (proctor's listener, token check, the MCP adapter, argument schema check, the responses
backend and the recorder), then three minimal hyper servers answering the same request with a
body of the same length: one in a separate process on a multi-thread runtime (the bare
loopback HTTP echo of the target), one in a separate process on a single-threaded runtime,
and one inside the agent on the agent's own runtime (no other thread or process woken). All
use the same HTTP client with a kept-alive connection. Prints the medians and the ratios.

Each backend in `--backends` is one such run: `responses` (the canned response above),
`server-perl` (the same reply from a `server:` backend, a Perl loop answering each JSON
line: the cost of proctor's side of a server backend, two pipe hops per call, with about
the cheapest server there is) and `server-python` (a Python JSON-lines server, as task
authors write them). Both servers read a whole line per read and write a whole answer per
write. (`sed -u` is no such server: it reads its input one byte per system call.)

    python3 bench/mcp/mcp_bench.py [--calls 500] [--rounds 7] [--no-build] [--profile dist]
        [--backends responses,server-perl,server-python]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TASK = """- id: served_call
  input: look up order A1
  expected: anything
  tools:
    - name: get_order
      description: Look up an order by id
      input_schema: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
      responses:
        - when: {order_id: A1}
          result: {order_id: A1, days_since_delivery: 12, status: delivered}
        - result: {error: unknown order}
"""

REPLY = '{"order_id":"A1","days_since_delivery":12,"status":"delivered"}'

# A `server:` backend answering every request line with the reply above and its id: one
# read per line, one write per answer.
PERL_SERVER = """$| = 1;
while (<STDIN>) {
    /"id":(\\d+)/ and print '{"id":' . $1 . ',"result":""" + REPLY + """}' . "\\n";
}
"""

PYTHON_SERVER = """import json, sys
reply = json.loads('""" + REPLY + """')
for line in sys.stdin:
    request = json.loads(line)
    sys.stdout.write(json.dumps({"id": request["id"], "result": reply}) + "\\n")
    sys.stdout.flush()
"""

BACKENDS = {
    "responses": None,
    "server-perl": "perl echo.pl",
    "server-python": "python3 -u echo.py",
}


def task_for(backend):
    """The task with `get_order` answered by `backend`."""
    command = BACKENDS[backend]
    if command is None:
        return TASK
    head = TASK.split("      responses:")[0]
    return head + f"      server: {command}\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500, help="requests per round and side")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--profile", default="dist")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--backends", default="responses,server-perl,server-python",
                        help="comma-separated: " + ", ".join(BACKENDS))
    args = parser.parse_args()
    if not args.no_build:
        subprocess.run(
            ["cargo", "build", "--locked", "--profile", args.profile, "-p", "proctor",
             "--bin", "proctor", "--example", "mcp_bench"],
            cwd=ROOT, check=True)
    target = os.path.join(ROOT, "target", "debug" if args.profile == "dev" else args.profile)
    proctor = os.path.join(target, "proctor")
    agent = os.path.join(target, "examples", "mcp_bench")
    for backend in args.backends.split(","):
        if backend not in BACKENDS:
            sys.exit(f"unknown backend {backend}; expected one of {', '.join(BACKENDS)}")
        print(f"== get_order answered by: {backend}")
        measure(proctor, agent, args, backend)


def measure(proctor, agent, args, backend):
    with tempfile.TemporaryDirectory() as work:
        tasks = os.path.join(work, "tasks.yaml")
        with open(tasks, "w") as f:
            f.write(task_for(backend))
        with open(os.path.join(work, "echo.pl"), "w") as f:
            f.write(PERL_SERVER)
        with open(os.path.join(work, "echo.py"), "w") as f:
            f.write(PYTHON_SERVER)
        out = os.path.join(work, "results.jsonl")
        subprocess.run(
            [proctor, "run", "--tasks", tasks, "--out", out, "--timeout", "600",
             "--agent", f"{agent} {args.calls} {args.rounds}"],
            check=False, stdout=subprocess.DEVNULL)
        with open(out) as f:
            result = json.loads(f.readline())
    try:
        measured = json.loads(result["answer"])
    except (TypeError, ValueError):
        sys.exit(f"the bench agent failed: {result.get('reasons')} {result.get('process')}")
    print(f"requests per side   {measured['calls']} ({measured['rounds']} rounds, interleaved)")
    print(f"request / reply     {measured['request_bytes']} / {measured['reply_bytes']} bytes")
    print(f"served tool call    {measured['served_us']:.1f} us  (median of round means)")
    print(f"bare echo           {measured['echo_us']:.1f} us  (separate process, multi-thread runtime)")
    print(f"bare echo, 1 thread {measured['echo_current_thread_us']:.1f} us  "
          "(separate process, current_thread runtime)")
    print(f"bare, in the agent  {measured['in_process_us']:.1f} us  "
          "(the agent's own runtime: no other thread woken)")
    print(f"ratio               {measured['ratio']:.2f}x  (served / bare echo; target: at most 2x)")
    print(f"ratio, 1 thread     {measured['ratio_current_thread']:.2f}x  (served / bare echo, 1 thread)")
    print(f"ratio, in the agent {measured['ratio_in_process']:.2f}x  (served / bare in the agent)")
    print(f"calls recorded      {result['tool_calls']}")


if __name__ == "__main__":
    main()
