"""One run of a Google Benchmark program, read from its JSON output (--benchmark_out)."""

import json
import math
from dataclasses import dataclass, field

from .benchmark_names import time_field
from .unusable_input import UnusableInput

NANOSECONDS_PER_UNIT = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


@dataclass
class BenchmarkSamples:
    """The repetitions of one benchmark, timed by the clock its name says (see benchmark_names)."""

    name: str  # Google Benchmark's run_name: the name without an aggregate suffix
    times_ns: dict = field(default_factory=dict)  # repetition index -> time of one iteration
    has_aggregates: bool = False  # _mean, _median, ... rows were seen
    # Where the program registered it: (family_index, per_family_instance_index). Rows come in
    # a shuffled order with --benchmark_enable_random_interleaving; this order does not change.
    registration: tuple = ()


@dataclass
class BenchmarkRun:
    path: str
    context: dict
    benchmarks: dict  # run name -> BenchmarkSamples, in the order of registration


def restricted_to(run, pattern):
    """RUN with only the benchmarks whose names PATTERN (a compiled regular expression) finds, as
    --benchmark_filter selects them: a search, not a whole-name match."""
    kept = {name: samples for name, samples in run.benchmarks.items() if pattern.search(name)}
    return BenchmarkRun(run.path, run.context, kept)


def without_benchmarks_missing_from(run, other):
    """(RUN less the benchmarks OTHER lacks, the names of those left out)."""
    left_out = [name for name in run.benchmarks if name not in other.benchmarks]
    kept = {name: samples for name, samples in run.benchmarks.items() if name in other.benchmarks}
    return BenchmarkRun(run.path, run.context, kept), left_out


def load_benchmark_run(path):
    """Reads PATH; raises UnusableInput naming every problem found in it."""
    document = read_document(path)
    run = BenchmarkRun(str(path), document["context"], {})
    problems = []
    for index, row in enumerate(document["benchmarks"]):
        problem = _add_row(run, index, row)
        if problem and problem not in problems:
            problems.append(problem)
    if problems:
        raise UnusableInput(problems)
    in_order = sorted(run.benchmarks.values(), key=lambda samples: samples.registration)
    run.benchmarks = {samples.name: samples for samples in in_order}
    return run


def read_document(path):
    """The JSON document of PATH, checked to have Google Benchmark's "context" object and
    "benchmarks" list; raises UnusableInput if it is unreadable or has not."""
    document = parse_json(path)
    if not isinstance(document, dict) or not isinstance(document.get("benchmarks"), list):
        raise UnusableInput([f'{path} is not Google Benchmark JSON: it has no "benchmarks" list'])
    if not isinstance(document.get("context"), dict):
        raise UnusableInput([f'{path} is not Google Benchmark JSON: it has no "context" object'])
    return document


def parse_json(path):
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except OSError as error:
        raise UnusableInput([f"cannot read {path}: {error.strerror}"]) from None
    except UnicodeDecodeError as error:
        raise UnusableInput([f"{path} is not UTF-8 text (byte {error.start})"]) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise UnusableInput([
            f"{path} is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ]) from None


def _add_row(run, index, row):
    """Adds one row of "benchmarks" to RUN; returns the problem with it, or None."""
    where = f'{run.path}: row {index} of "benchmarks"'
    if not isinstance(row, dict):
        return f"{where} is not an object"
    for key in ("name", "run_name", "run_type"):
        if not isinstance(row.get(key), str):
            return f'{where} has no "{key}" string'
    name = row["run_name"]
    if row.get("error_occurred"):
        return f'{run.path}: benchmark {name} reported an error: "{row.get("error_message", "")}"'
    samples = run.benchmarks.get(name)
    if samples is None:
        registration = (row.get("family_index"), row.get("per_family_instance_index"))
        if not all(isinstance(position, int) for position in registration):
            registration = (len(run.benchmarks), 0)  # older files: the order of the file
        samples = run.benchmarks[name] = BenchmarkSamples(name, registration=registration)
    if row["run_type"] == "aggregate":
        samples.has_aggregates = True
        return None
    if row["run_type"] != "iteration":
        return f'{where} ({row["name"]}) has the unknown run_type "{row["run_type"]}"'
    time_ns, problem = _time_ns(row, time_field(name))
    if problem:
        return f"{where} ({row['name']}) {problem}"
    repetition = row.get("repetition_index", len(samples.times_ns))
    if isinstance(repetition, bool) or not isinstance(repetition, int) or repetition < 0:
        return f'{where} ({row["name"]}) has a "repetition_index" that is not a whole number: {repetition!r}'
    if repetition in samples.times_ns:
        return f"{run.path}: benchmark {name} has repetition {repetition} twice"
    samples.times_ns[repetition] = time_ns
    return None


def _time_ns(row, key):
    """(time in nanoseconds, None), or (None, what is wrong)."""
    unit = row.get("time_unit")
    if not isinstance(unit, str) or unit not in NANOSECONDS_PER_UNIT:
        return None, f'has no known "time_unit" ({", ".join(NANOSECONDS_PER_UNIT)}): {unit!r}'
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, f'has no number "{key}"'
    if not math.isfinite(value) or value <= 0:
        return None, f'has a "{key}" that is not a positive number: {value}'
    return value * NANOSECONDS_PER_UNIT[unit], None
