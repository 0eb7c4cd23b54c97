"""BenchmarkRun values built in memory, for the tests of the modules that take runs."""

import repository  # noqa: F401  (makes benchcompare importable)
from benchcompare.benchmark_run import BenchmarkRun, BenchmarkSamples


def make_run(path, times_by_name, context=None, aggregates_only=()):
    """A run of the benchmarks in TIMES_BY_NAME (name -> list of times, repetition i at index i);
    names in AGGREGATES_ONLY have aggregate rows and no repetitions."""
    benchmarks = {}
    for order, (name, times) in enumerate(times_by_name.items()):
        benchmarks[name] = BenchmarkSamples(name, dict(enumerate(times)),
                                            has_aggregates=name in aggregates_only,
                                            registration=(order, 0))
    return BenchmarkRun(path, dict(context or {}), benchmarks)
