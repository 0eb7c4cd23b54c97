"""Which benchmarks two runs share; every reason they cannot be compared is an UnusableInput."""

import difflib

from .unusable_input import UnusableInput


def common_benchmarks(baseline, current, min_repetitions):
    """Names of the benchmarks of both runs, in the baseline's order, each with at least
    `min_repetitions` repetitions on each side."""
    problems = _one_sided(baseline, current) + _one_sided(current, baseline)
    names = [name for name in baseline.benchmarks if name in current.benchmarks]
    if not names:
        problems.append(
            f"no benchmark is in both {baseline.path} ({len(baseline.benchmarks)} benchmarks) "
            f"and {current.path} ({len(current.benchmarks)}): nothing to compare")
    for run in (baseline, current):
        problems += _too_few_repetitions(run, names, min_repetitions)
    if problems:
        raise UnusableInput(problems)
    return names


def _one_sided(run, other):
    """A message for each benchmark of RUN missing from OTHER, with a likely new name."""
    missing = [name for name in run.benchmarks if name not in other.benchmarks]
    unmatched = [name for name in other.benchmarks if name not in run.benchmarks]
    messages = []
    for name in missing:
        message = f"{name} is only in {run.path}"
        candidates = difflib.get_close_matches(name, unmatched, n=1)
        if candidates:
            message += f" (renamed? {other.path} has {candidates[0]})"
        messages.append(message)
    return messages


def _too_few_repetitions(run, names, min_repetitions):
    aggregates_only = [name for name in names
                       if not run.benchmarks[name].times_ns and run.benchmarks[name].has_aggregates]
    rerun = (f"run build/benches with --benchmark_repetitions={min_repetitions} (or more) and "
             "without --benchmark_report_aggregates_only")
    if aggregates_only and len(aggregates_only) == len(run.benchmarks):
        return [f"{run.path} holds only aggregate rows (_mean, _median, ...), as "
                "--benchmark_report_aggregates_only writes them: the test needs one row per "
                f"repetition; {rerun}"]
    messages = [f"{run.path}: {name} has only aggregate rows, no row per repetition; {rerun}"
                for name in aggregates_only]
    for name in names:
        count = len(run.benchmarks[name].times_ns)
        if name not in aggregates_only and count < min_repetitions:
            messages.append(f"{run.path}: {name} has {count} repetitions, fewer than "
                            f"--min-repetitions {min_repetitions}; {rerun}")
    return messages
