"""A run of the instruction-count gate as Google-Benchmark-shaped JSON: a row per workload with
the counter `instructions` (per iteration), and a context naming what the counts depend on."""

import datetime
import json
import platform
import subprocess

from .benchmark_run import read_document
from .unusable_input import UnusableInput

COUNTER = "instructions"
# The fields of the context that two counts must share to be compared: the same code built
# by another compiler, or run with other kernels, counts other instructions.
KEY_FIELDS = ("compiler", "build_type", "isa_cap", "isa")


def counts_document(context, counts):
    """The JSON document of a counting run: `context` from bench_counts --context, `counts` a
    list of callgrind_counting.Count in workload order."""
    valgrind = subprocess.run(["valgrind", "--version"], capture_output=True, text=True, check=False)
    full_context = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host_name": platform.node(),
        "executable": "bench_counts",
        "counted_by": valgrind.stdout.strip() + " --tool=callgrind (instructions: Ir per iteration)",
        **context,
    }
    rows = []
    for index, count in enumerate(counts):
        seconds_per_iteration = count.seconds / count.workload.iterations
        rows.append({
            "name": count.workload.name,
            "family_index": index,
            "per_family_instance_index": 0,
            "run_name": count.workload.name,
            "run_type": "iteration",
            "repetitions": 1,
            "repetition_index": 0,
            "threads": 1,
            "iterations": count.workload.iterations,
            # Time under valgrind, process start-up included: information only.
            "real_time": seconds_per_iteration * 1e9,
            "cpu_time": seconds_per_iteration * 1e9,
            "time_unit": "ns",
            COUNTER: count.instructions,
        })
    return {"context": full_context, "benchmarks": rows}


def load_counts(path):
    """(context, {workload: instructions per iteration}) of a counting run; raises UnusableInput
    naming every problem."""
    document = read_document(path)
    counts, problems = {}, []
    for index, row in enumerate(document["benchmarks"]):
        where = f'{path}: row {index} of "benchmarks"'
        if not isinstance(row, dict) or not isinstance(row.get("name"), str):
            problems.append(f'{where} has no "name" string')
            continue
        value = row.get(COUNTER)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            problems.append(f'{where} ({row["name"]}) has no positive whole "{COUNTER}" count: {value!r} '
                            "(a run of scripts/bench --counts, not of build/benches?)")
        elif row["name"] in counts:
            problems.append(f'{path}: workload {row["name"]} appears twice')
        else:
            counts[row["name"]] = value
    if problems:
        raise UnusableInput(problems)
    return document["context"], counts


def dumps(document):
    return json.dumps(document, indent=2) + "\n"
