#!/usr/bin/env python3
"""Splits a refund log of `check_bench.py` into the runs that pass its one check and those
that break it, the first N of each, to count instructions per kind of line:

    python3 bench/split_refunds.py bench/out/refunds_1000000_s7.jsonl 50000
    # writes bench/out/pass.jsonl and bench/out/fail.jsonl beside the log
"""

import json
import sys
from pathlib import Path


def main(log: Path, each: int) -> None:
    kept = {True: [], False: []}
    with log.open(encoding="utf-8") as lines:
        for line in lines:
            tools = [step[0] for step in json.loads(line)["trajectory"]]
            passes = "check_eligibility" in tools
            if len(kept[passes]) < each:
                kept[passes].append(line)
            if all(len(runs) >= each for runs in kept.values()):
                break
    for passes, name in ((True, "pass.jsonl"), (False, "fail.jsonl")):
        (log.parent / name).write_text("".join(kept[passes]), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
