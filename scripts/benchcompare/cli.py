"""The command line of scripts/compare."""

import argparse
import re

from .benchmark_run import load_benchmark_run, restricted_to, without_benchmarks_missing_from
from .comparison_report import compare_runs
from .count_comparison import DEFAULT_THRESHOLDS, compare_counts, render_count_report
from .instruction_count_run import load_counts
from .machine_fingerprint import FINGERPRINT_FIELDS
from .mann_whitney import EXACT_MAX_PER_SIDE, smallest_p_value
from .wilcoxon_signed_rank import EXACT_MAX_PAIRS
from .wilcoxon_signed_rank import smallest_p_value as smallest_paired_p_value
from .minimum_effects import DEFAULT_MINIMUM_EFFECTS, parse_minimum_effect, read_minimum_effects
from .report_rendering import render_report
from .speedup_ratios import SPEEDUP_RATIOS
from .unusable_input import UnusableInput, print_problems

PROGRAM = "scripts/compare"
EXIT_NO_REGRESSION = 0
EXIT_REGRESSION = 1
EXIT_UNUSABLE_INPUT = 2

DESCRIPTION = """\
Compares two runs of build/benches (Google Benchmark JSON, --benchmark_out=FILE
--benchmark_out_format=json) and tells, per benchmark, whether CURRENT is slower, faster or the
same as BASELINE. Make both with the same filter, with --benchmark_repetitions=5 or more and
without --benchmark_report_aggregates_only (the test needs one row per repetition), best with
--benchmark_enable_random_interleaving=true (slow phases of a busy machine then spread over all
benchmarks instead of hitting a few).

Benchmarks pair up by name. A benchmark whose name ends in /real_time is timed by the wall clock
(its real_time), the others by CPU time (cpu_time). Per benchmark: the medians of the
repetitions, their relative change, and the two-sided Mann-Whitney U test of the repetitions
(exact up to {exact} per side, normal approximation with tie correction above). The verdict is
`slower` only if p < ALPHA and the median got slower by more than the minimum effect of the
benchmark; `faster` likewise; else `same`.

Speedup ratios carry over between machines. Within one run, for each family (FAMILY/MEMBER) that
has both members of a pair CANDIDATE/REFERENCE, the speedup of repetition i is
time(REFERENCE)_i / time(CANDIDATE)_i. The pairs:
  {ratios}
Baseline and current speedups are compared the same way, against the larger minimum effect of
their two benchmarks; a speedup that fell is `slower`.

With --paired, BASELINE and CURRENT ran side by side in rounds (scripts/bench --against REV):
repetition i of both ran moments apart, so whatever the machine did then slowed both. Per
benchmark, the change is then the median of the ratios current_i / baseline_i and the test the
Wilcoxon signed-rank test of their logarithms (exact up to {pairs} pairs): a slow phase of the
machine cancels within each pair instead of widening both samples. Speedups pair the same way.

Either the times or the speedups gate, never both. Runs on one machine, as told by these fields
of the JSON context (a field missing from either file is not compared):
  {fields}
are gated by their times; their speedups are information (a speedup also falls when its
reference gets faster, which is no regression). If a field differs, it is printed and only the
speedups gate; --ratios-only does the same for runs on one machine.

With --drift, runs made minutes or days apart on one machine are compared net of the machine's
drift: the median over all benchmarks of the change of their medians (at least 5 benchmarks),
by which the current times are divided before they are compared. A slow phase of a shared host
moves every benchmark alike and cancels; a regression of some benchmarks stands out. A change
that slows all benchmarks alike cancels too: the speedup ratios, and a calibration benchmark
among them that no code change moves (its change shows against the drift), tell those.

With --counts, BASELINE and CURRENT are runs of the instruction-count gate (scripts/counts run,
scripts/bench --counts): one count of instructions per workload, which repeats exactly for the
same code, compiler and instruction set. No statistics: a workload regressed if its count grew
by more than its limit (default 1%; --min-effect and --min-effects-file set limits per workload
as for times), and improved if it shrank by more. Runs made with another compiler, build type or
ISA cap are refused (exit status 2), as is a workload of the baseline missing from CURRENT;
workloads only in CURRENT are listed as not compared."""

EPILOG = """\
default minimum effects (PATTERN=PCT, the last matching rule wins):
{effects}
  Measured: 6 runs of one build on the shared 2-core VM of this project, compared pairwise.
  Medians of identical code moved by 11% (median; 1 in 10 by over 25%) single-threaded, by 16%
  (1 in 10 by over 44%) multi-threaded; a whole run shifting at once makes some of these moves
  significant, so the minimum effect is what stops them. On a quiet machine lower them, e.g.
  --min-effect '*=3'. PATTERN is an fnmatch glob on the benchmark name (* also matches /);
  rules given later override earlier ones and the defaults.

exit status:
  0  nothing that gates got slower
  1  a regression: the tables are printed all the same, the regressions listed last
  2  unusable input, with a message for each problem: a file missing, unreadable, not JSON or
     not Google Benchmark JSON; a benchmark that reported an error; a benchmark on one side only
     (with the likely new name); too few repetitions; no benchmark in common"""


def main(argv=None):
    arguments = _parse_arguments(argv)
    if arguments.counts:
        return _compare_counts(arguments)
    problems = []
    runs = []
    for path in (arguments.baseline, arguments.current):
        try:
            run = load_benchmark_run(path)
            runs.append(restricted_to(run, arguments.filter) if arguments.filter else run)
        except UnusableInput as error:
            problems += error.messages
    new_benchmarks = []
    if not problems and arguments.allow_new:
        runs[1], new_benchmarks = without_benchmarks_missing_from(runs[1], runs[0])
    if not problems:
        try:
            report = compare_runs(*runs, arguments.alpha,
                                  DEFAULT_MINIMUM_EFFECTS + arguments.min_effects_file + tuple(arguments.min_effect),
                                  arguments.min_repetitions, arguments.ratios_only, arguments.paired,
                                  arguments.drift)
        except UnusableInput as error:
            problems += error.messages
    if problems:
        print_problems(PROGRAM, problems)
        return EXIT_UNUSABLE_INPUT
    if new_benchmarks:
        print(f"Not compared: {len(new_benchmarks)} benchmark{'s' if len(new_benchmarks) != 1 else ''} "
              f"only in {arguments.current}, which the baseline does not have yet: "
              f"{', '.join(new_benchmarks)}\n")
    print(render_report(report, arguments.markdown))
    return EXIT_REGRESSION if report.regressions() else EXIT_NO_REGRESSION


def _compare_counts(arguments):
    try:
        runs = [load_counts(path) for path in (arguments.baseline, arguments.current)]
        if arguments.filter:
            runs = [(context, {name: count for name, count in counts.items() if arguments.filter.search(name)})
                    for context, counts in runs]
        report = compare_counts(*runs, DEFAULT_THRESHOLDS + arguments.min_effects_file + tuple(arguments.min_effect))
    except UnusableInput as error:
        print_problems(PROGRAM, error.messages)
        return EXIT_UNUSABLE_INPUT
    print(render_count_report(report, arguments.markdown))
    return EXIT_REGRESSION if report.regressions() else EXIT_NO_REGRESSION


def _parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description=DESCRIPTION.format(
            exact=EXACT_MAX_PER_SIDE,
            pairs=EXACT_MAX_PAIRS,
            ratios=", ".join(f"{ratio.candidate}/{ratio.reference}" for ratio in SPEEDUP_RATIOS),
            fields=", ".join(FINGERPRINT_FIELDS)),
        epilog=EPILOG.format(effects="\n".join(
            f"  {rule.pattern + '=' + format(rule.percent, 'g'):<28} {rule.reason}"
            for rule in DEFAULT_MINIMUM_EFFECTS)),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", metavar="BASELINE.json", help="the run to compare against")
    parser.add_argument("current", metavar="CURRENT.json", help="the run under test")
    parser.add_argument("--markdown", action="store_true",
                        help="GitHub markdown tables instead of aligned text")
    parser.add_argument("--alpha", type=_probability, default=0.05,
                        help="significance level: a change counts only if p < ALPHA, i.e. if "
                        "repetitions this far apart would come from one unchanged program less "
                        "often than that (default: %(default)s)")
    parser.add_argument("--min-effect", metavar="PATTERN=PCT", type=_minimum_effect,
                        action="append", default=[],
                        help="smallest change in percent of the baseline median that counts for "
                        "the benchmarks matching PATTERN; repeatable (defaults below)")
    parser.add_argument("--min-effects-file", metavar="FILE", type=_minimum_effects_file, default=(),
                        help="rules of --min-effect read from FILE, one PATTERN=PCT a line (# "
                        "comments), after the defaults and before any --min-effect: the floors "
                        "measured on a machine (data/baselines/*minimum_effects)")
    parser.add_argument("--filter", metavar="REGEX", type=regular_expression,
                        help="compare only the benchmarks whose names REGEX finds, in both runs, "
                        "as --benchmark_filter selects them: e.g. a baseline of the whole suite "
                        "against a run of a subset")
    parser.add_argument("--allow-new", action="store_true",
                        help="benchmarks only in CURRENT (added since the baseline was recorded) "
                        "are listed as not compared instead of being an error; one only in "
                        "BASELINE still is")
    parser.add_argument("--paired", action="store_true",
                        help="repetition i of BASELINE ran beside repetition i of CURRENT: test "
                        "the ratios of the pairs (see above)")
    parser.add_argument("--ratios-only", action="store_true",
                        help="gate on the speedup ratios only; changes of times are information")
    parser.add_argument("--counts", action="store_true",
                        help="compare instruction counts (runs of scripts/bench --counts; see above)")
    parser.add_argument("--drift", action="store_true",
                        help="divide the machine's drift, the median change of all benchmarks, "
                        "out of the current times before comparing them (see above)")
    parser.add_argument("--min-repetitions", type=int,
                        help="fewest repetitions per benchmark and run: with 5 against 5 the "
                        "smallest possible p is 2/252 = 0.008, with 4 it is 0.029 and with 3 "
                        "0.1, which could never be significant; --paired needs 6 or more (5 "
                        "pairs all on one side give p = 2/32 = 0.0625) (default: 5, with "
                        "--paired 6)")
    arguments = parser.parse_args(argv)
    if arguments.counts and (arguments.paired or arguments.drift or arguments.ratios_only):
        parser.error("--counts compares exact counts: it takes neither --paired, --drift nor --ratios-only")
    if arguments.drift and arguments.paired:
        parser.error("--drift and --paired: the pairs of paired runs cancel the drift already")
    if arguments.min_repetitions is None:
        arguments.min_repetitions = 6 if arguments.paired else 5
    floor = (smallest_paired_p_value(arguments.min_repetitions) if arguments.paired
             else smallest_p_value(arguments.min_repetitions, arguments.min_repetitions))
    if arguments.min_repetitions < 1 or floor >= arguments.alpha:
        parser.error(f"--min-repetitions {arguments.min_repetitions}: with so few repetitions "
                     f"no p-value can be below --alpha {arguments.alpha} (the smallest is "
                     f"{floor:.3g}), so no change could ever be flagged")
    return arguments


def _probability(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 1")
    return value


def regular_expression(text):
    try:
        return re.compile(text)
    except re.error as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not a regular expression: {error}") from None


def _minimum_effect(text):
    try:
        return parse_minimum_effect(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _minimum_effects_file(path):
    try:
        return read_minimum_effects(path)
    except OSError as error:
        raise argparse.ArgumentTypeError(f"cannot read {path}: {error.strerror}") from None
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
