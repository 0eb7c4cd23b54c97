"""User counters of a run that tell how close a kernel gets to the machine: GFLOPS and
peak_fraction (the SDPA benchmarks set them with state.counters).

benchmark_run keeps only times; this reads the same JSON file again, after load_benchmark_run has
accepted it, for the counters of the iteration rows (Google Benchmark writes a counter as a number
named after it in each row).
"""

import math
from dataclasses import dataclass

from .benchmark_run import parse_json
from .unusable_input import UnusableInput


@dataclass(frozen=True)
class Counter:
    name: str  # the key in the JSON rows
    description: str  # what the value is, for an axis
    unit: str  # printed after a value; "%" shows a fraction as a percentage


# The counters plotted, in this order; a run without one has no panel for it.
COUNTERS = (
    Counter("GFLOPS", "floating-point throughput, GFLOP/s", "GFLOP/s"),
    Counter("peak_fraction", "fraction of the machine's peak FLOP rate", "%"),
)


def counter_samples(run, counters=COUNTERS):
    """{counter name: {benchmark name: [value per repetition]}} for the counters and benchmarks of
    RUN that have any, in the order of COUNTERS and of RUN's benchmarks. Raises UnusableInput for
    a counter that is not a finite number."""
    document = parse_json(run.path)
    found = {counter.name: {} for counter in counters}
    problems = []
    for index, row in enumerate(document["benchmarks"]):
        if row.get("run_type") != "iteration" or row.get("run_name") not in run.benchmarks:
            continue
        for counter in counters:
            if counter.name not in row:
                continue
            value = row[counter.name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value):
                problems.append(f'{run.path}: row {index} of "benchmarks" ({row["name"]}) has a '
                                f'"{counter.name}" that is not a finite number: {value!r}')
                continue
            found[counter.name].setdefault(row["run_name"], []).append(value)
    if problems:
        raise UnusableInput(problems)
    return {
        name: {benchmark: by_benchmark[benchmark]
               for benchmark in run.benchmarks if benchmark in by_benchmark}
        for name, by_benchmark in found.items() if by_benchmark
    }
