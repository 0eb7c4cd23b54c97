"""Merges the runs of one side of a paired comparison into one run with repetitions.

scripts/bench --against runs both builds once per round, alternately; round i of each side
becomes repetition i of that side's merged run, so scripts/compare --paired pairs round i of the
baseline with round i of the current build.
Usage (with scripts/ on PYTHONPATH): python3 -m benchcompare.round_merging OUT.json ROUND.json...
"""

import json
import sys
from pathlib import Path

from .benchmark_run import read_document
from .unusable_input import UnusableInput, print_problems


def merge_rounds(round_paths):
    """One Google Benchmark document: the context of the first round, and the iteration rows of
    round i with repetition_index i. Raises UnusableInput if a round is not usable."""
    merged = None
    rows = []
    for index, path in enumerate(round_paths):
        document = read_document(path)
        merged = merged or {"context": document["context"]}
        for row in document["benchmarks"]:
            if not isinstance(row, dict) or row.get("run_type") != "iteration":
                continue
            if row.get("repetitions", 1) != 1:
                raise UnusableInput([f"{path}: {row.get('name')} has {row['repetitions']} repetitions; "
                                     "a round runs each benchmark once"])
            rows.append(dict(row, repetition_index=index, repetitions=len(round_paths)))
    if merged is None:
        raise UnusableInput(["no round to merge"])
    merged["benchmarks"] = rows
    return merged


def main(argv):
    if len(argv) < 2:
        print("usage: round_merging.py OUT.json ROUND.json...", file=sys.stderr)
        return 2
    try:
        merged = merge_rounds(argv[1:])
    except UnusableInput as error:
        print_problems("round_merging.py", error.messages)
        return 2
    Path(argv[0]).write_text(json.dumps(merged, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
