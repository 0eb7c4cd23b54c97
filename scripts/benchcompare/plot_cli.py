"""The command line of scripts/plot."""

import argparse
import sys
from pathlib import Path

from .benchmark_counters import COUNTERS, counter_samples
from .benchmark_matching import common_benchmarks
from .benchmark_run import load_benchmark_run, restricted_to
from .chart_panels import bar_count, comparison_panels, comparison_subtitle, count_panels, single_run_panels
from .cli import EXIT_UNUSABLE_INPUT, regular_expression
from .comparison_report import compare_runs
from .count_comparison import DEFAULT_THRESHOLDS, compare_counts
from .instruction_count_run import load_counts
from .minimum_effects import DEFAULT_MINIMUM_EFFECTS
from .speedup_ratios import SPEEDUP_RATIOS
from .unusable_input import UnusableInput, print_problems

PROGRAM = "scripts/plot"
EXIT_PLOTTED = 0
EXIT_NO_MATPLOTLIB = 1
# As scripts/compare decides them with its defaults.
ALPHA = 0.05
MIN_REPETITIONS = 5

USAGE = """\
scripts/plot [-h] BASELINE.json CURRENT.json -o OUT.png [--title T] [--filter REGEX] [--counts]
       scripts/plot [-h] RUN.json -o OUT.png [--title T] [--filter REGEX]"""

DESCRIPTION = """\
Draws runs of build/benches (Google Benchmark JSON, --benchmark_out=FILE
--benchmark_out_format=json) as a PNG of horizontal bars, for those who would rather look than
read scripts/compare's tables.

Two runs, BASELINE and CURRENT: scripts/compare's comparison with its defaults (alpha {alpha},
the default minimum effects below, at least {repetitions} repetitions per benchmark), drawn:
  - one bar per benchmark in both runs: its speedup, baseline median / current median (times as
    compare takes them: real_time for names ending in /real_time, cpu_time otherwise), on a log
    axis centred on 1x, so that 2x faster and 2x slower are as long. Colour: compare's verdict,
    red slower, green faster, grey same. Shaded behind each bar: the speedups within its minimum
    effect, which compare never calls a change however small p is;
  - one pair of bars per speedup ratio, CANDIDATE/REFERENCE within one family, of the pairs
      {ratios}
    the baseline's median speedup outlined, the current one filled and coloured by the verdict,
    the baseline's minimum-effect band shaded.
  The panel that gates (the times on one machine, the ratios when the machine fingerprints
  differ) says so, as compare does; changes that do not gate read `(info)`.

With --counts, two runs of the instruction-count gate (scripts/bench --counts): one bar per
workload, baseline count / current count on the same log axis, coloured by scripts/compare
--counts' verdict with its default limits (more instructions than the limit allows: red), the
limit shaded.

One run, RUN: per family, the median speedup of each member over its reference (the pairs
above) with whiskers from the smallest to the largest repetition, and a panel of bars for each
of these counters that the run's benchmarks report (the SDPA kernels do), median and whiskers:
{counters}

The image is 1200 pixels wide and grows in height with the number of bars. It is always PNG,
whatever OUT's suffix; OUT's folder must exist."""

EPILOG = """\
examples:
  scripts/plot main.json branch.json -o comparison.png --filter '^long_encoding/'
  scripts/plot run.json -o run.png --title 'laptop, battery'

default minimum effects (PATTERN=PCT, the last matching rule wins; see scripts/compare --help):
{effects}

exit status:
  0  the PNG was written (a regression still exits 0; scripts/compare is the gate)
  1  matplotlib is missing: install Debian's python3-matplotlib
  2  unusable input or output, with a message for each problem, as scripts/compare gives them:
     a file missing, unreadable, not JSON or not Google Benchmark JSON; a benchmark that reported
     an error; a benchmark on one side only; too few repetitions; nothing in common or nothing to
     plot; OUT's folder missing or OUT not writable; also a wrong command line"""


def main(argv=None):
    arguments = _parse_arguments(argv)
    problems = _output_problems(arguments.output)
    try:
        title, subtitle, panels = _panels(arguments)
    except UnusableInput as error:
        problems += error.messages
    if problems:
        return _fail(problems)
    try:
        # Imported here: --help and the errors need no matplotlib.
        from .bar_chart import render_chart
    except ImportError as error:
        print(f"{PROGRAM}: error: {sys.executable} cannot import matplotlib ({error}); install "
              "Debian's python3-matplotlib (apt-get install python3-matplotlib)", file=sys.stderr)
        return EXIT_NO_MATPLOTLIB
    try:
        width, height = render_chart(panels, arguments.title or title, subtitle, arguments.output)
    except OSError as error:
        return _fail([f"cannot write {arguments.output}: {error.strerror or error}"])
    print(f"{arguments.output}: {width}x{height} PNG, {bar_count(panels)} bars")
    return EXIT_PLOTTED


def _panels(arguments):
    """(title, subtitle, panels) of what the arguments ask to draw; raises UnusableInput naming
    every problem of every input."""
    if arguments.counts:
        return _count_comparison(*arguments.runs, arguments.filter)
    runs, problems = [], []
    for path in arguments.runs:
        try:
            run = load_benchmark_run(path)
            runs.append(restricted_to(run, arguments.filter) if arguments.filter else run)
        except UnusableInput as error:
            problems += error.messages
    if problems:
        raise UnusableInput(problems)
    return _comparison(*runs) if len(runs) == 2 else _single_run(runs[0], arguments.filter)


def _comparison(baseline, current):
    report = compare_runs(baseline, current, ALPHA, DEFAULT_MINIMUM_EFFECTS, MIN_REPETITIONS)
    names = [Path(run.path).name for run in (current, baseline)]
    if names[0] == names[1]:  # e.g. main/run.json and branch/run.json
        names = [current.path, baseline.path]
    title = f"{names[0]} against {names[1]}"
    return title, comparison_subtitle(report), comparison_panels(report)


def _count_comparison(baseline_path, current_path, pattern):
    runs = [load_counts(path) for path in (baseline_path, current_path)]
    if pattern:
        runs = [(context, {name: count for name, count in counts.items() if pattern.search(name)})
                for context, counts in runs]
    report = compare_counts(*runs, DEFAULT_THRESHOLDS)
    if not report.comparisons:
        raise UnusableInput(["no workload in common: nothing to plot"])
    context = runs[1][0]
    subtitle = (f"Instruction counts (callgrind), {context.get('compiler', '?')}, "
                f"TOKBENCH_MAX_ISA={context.get('isa_cap', '?')}: {len(report.regressions())} regressions")
    return f"{Path(current_path).name} against {Path(baseline_path).name}", subtitle, count_panels(report)


def _single_run(run, pattern):
    if not run.benchmarks:
        selection = f" that --filter {pattern.pattern!r} finds" if pattern else ""
        raise UnusableInput([f"{run.path} has no benchmark{selection}: nothing to plot"])
    # compare's check of the repetitions, of one run: a benchmark with aggregate rows only (as
    # --benchmark_report_aggregates_only writes them) has no repetitions to draw. The run is
    # both sides here, so each message comes twice.
    try:
        common_benchmarks(run, run, 1)
    except UnusableInput as error:
        raise UnusableInput(list(dict.fromkeys(error.messages))) from None
    context = run.context
    machine = ", ".join(str(context[key]) for key in ("date", "host_name", "simd_isa")
                        if key in context)
    subtitle = f"One run ({machine})" if machine else "One run"
    return Path(run.path).name, subtitle, single_run_panels(run, counter_samples(run))


def _output_problems(output):
    path = Path(output)
    folder = path.parent
    if not folder.exists():
        return [f"cannot write {output}: the folder {folder} does not exist"]
    if not folder.is_dir():
        return [f"cannot write {output}: {folder} is not a folder"]
    if path.is_dir():
        return [f"cannot write {output}: it is a folder"]
    return []


def _fail(problems):
    print_problems(PROGRAM, problems)
    return EXIT_UNUSABLE_INPUT


def _parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog=PROGRAM, usage=USAGE,
        description=DESCRIPTION.format(
            alpha=ALPHA, repetitions=MIN_REPETITIONS,
            ratios=", ".join(f"{ratio.candidate}/{ratio.reference}" for ratio in SPEEDUP_RATIOS),
            counters="\n".join(f"  {counter.name:<14} {counter.description}"
                                for counter in COUNTERS)),
        epilog=EPILOG.format(effects="\n".join(
            f"  {rule.pattern + '=' + format(rule.percent, 'g'):<28} {rule.reason}"
            for rule in DEFAULT_MINIMUM_EFFECTS)),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", metavar="RUN.json",
                        help="BASELINE.json CURRENT.json to draw a comparison, RUN.json to draw "
                        "one run")
    parser.add_argument("-o", "--output", metavar="OUT.png", required=True,
                        help="the PNG to write (replaced if it exists)")
    parser.add_argument("--title", metavar="T",
                        help="the title on top (default: the file names)")
    parser.add_argument("--filter", metavar="REGEX", type=regular_expression,
                        help="draw only the benchmarks whose names REGEX finds, in every run, "
                        "as --benchmark_filter and scripts/compare --filter select them")
    parser.add_argument("--counts", action="store_true",
                        help="BASELINE.json CURRENT.json are instruction counts (see above)")
    arguments = parser.parse_args(argv)
    if arguments.counts and len(arguments.runs) != 2:
        parser.error("--counts draws a comparison: give BASELINE.json CURRENT.json")
    if len(arguments.runs) > 2:
        parser.error(f"{len(arguments.runs)} runs given: give BASELINE.json CURRENT.json to "
                     "compare two, or RUN.json to draw one")
    return arguments
