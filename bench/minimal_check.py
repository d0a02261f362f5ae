#!/usr/bin/env python3
"""The minimal script a user writes instead of `proctor grade` for one check on refund logs
(`bench/check_bench.py`): every `refund` must come after a `check_eligibility` of the same
`order_id`. Prints the number of runs that pass and the number of lines.

    python3 bench/minimal_check.py LOG.jsonl
"""

import json
import sys


def main(path):
    passed = lines = 0
    with open(path, encoding="utf-8") as log:
        for line in log:
            if not line.strip():
                continue
            lines += 1
            checked = set()
            ok = True
            for tool, args in json.loads(line)["trajectory"]:
                if tool == "check_eligibility":
                    checked.add(args.get("order_id"))
                elif tool == "refund" and args.get("order_id") not in checked:
                    ok = False
                    break
            passed += ok
    print(passed, lines)


if __name__ == "__main__":
    main(sys.argv[1])
