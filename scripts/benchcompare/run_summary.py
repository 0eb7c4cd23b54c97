"""One run of build/benches as a person reads it at a glance: one line per benchmark, grouped by
family, with the figures that matter (median time; MB/s and tokens per second; GFLOP/s and the
fraction of the machine's peak) and the speedup over the family's reference implementation.

Usage (with scripts/ on PYTHONPATH): python3 -m benchcompare.run_summary RUN.json
"""

import statistics
import sys
from dataclasses import dataclass

from .benchmark_names import WALL_CLOCK_SUFFIXES, time_field
from .benchmark_run import NANOSECONDS_PER_UNIT, load_benchmark_run, parse_json
from .report_rendering import format_duration, format_speedup
from .tables import Table, render_text_table
from .unusable_input import UnusableInput, print_problems

PROGRAM = "run_summary.py"

# The member each family's speedups are taken over: the plain implementation the others are
# checked against. A family without its reference in the run shows no speedups.
REFERENCE_MEMBERS = {"pretokenization": "regex", "sdpa": "reference", "sdpa_decode": "flash"}
# Families of benchmarks `FAMILY/IMPL/SHAPE`, listed by implementation, one line per shape, each
# with its family's reference implementation at the same shape as its reference.
SHAPED_FAMILIES = ("sdpa", "sdpa_decode")
DEFAULT_REFERENCE_MEMBER = "serial"
# What items_per_second counts, where it is not tokens.
ITEM_UNITS = {"pretokenization": "Mpieces/s"}
DEFAULT_ITEM_UNIT = "Mtok/s"
# Counters that are rates: per second of the benchmark's time (peak_fraction is GFLOPS over the
# machine's peak, bandwidth_fraction GBps over its memory bandwidth, so they scale alike).
RATE_COUNTERS = ("bytes_per_second", "items_per_second", "GFLOPS", "peak_fraction", "GBps", "bandwidth_fraction")


@dataclass(frozen=True)
class Placement:
    family: str  # the heading the benchmark is listed under
    member: str  # its line's label
    reference_member: str  # the member of the family its speedup is over

    @property
    def key(self):
        return f"{self.family}/{self.member}"

    @property
    def reference_key(self):
        """The key of the reference's placement."""
        top = self.family.split("/")[0]
        if top in SHAPED_FAMILIES:
            return f"{top}/{self.reference_member}/{self.member}"
        return f"{self.family}/{self.reference_member}"


def placement(name):
    """Where NAME goes: benchmarks of SHAPED_FAMILIES, `FAMILY/IMPL/SHAPE`, are listed by
    implementation, one line per shape, with the family's reference implementation at the same
    shape as their reference; the others, `FAMILY/MEMBER`, one line per member."""
    for suffix in WALL_CLOCK_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    top = name.split("/")[0]
    if top in SHAPED_FAMILIES and name.count("/") >= 2:
        _, implementation, shape = name.split("/", 2)
        return Placement(f"{top}/{implementation}", shape, REFERENCE_MEMBERS[top])
    family, _, member = name.rpartition("/")
    return Placement(family, member, REFERENCE_MEMBERS.get(family.split("/")[0], DEFAULT_REFERENCE_MEMBER))


def _rates(run):
    """{benchmark: {counter: value at the median time}} for the counters of the figures. Google
    Benchmark divides a rate counter by the benchmark's own time (the clock its name says), so a
    counter times that time is the work of one iteration; that work over the median time gives
    figures that agree with the time shown (a median of each rate alone need not)."""
    work = {}
    for row in parse_json(run.path)["benchmarks"]:
        name = row.get("run_name")
        if row.get("run_type") != "iteration" or name not in run.benchmarks:
            continue
        time = row.get(time_field(name))
        unit = NANOSECONDS_PER_UNIT.get(row.get("time_unit"))
        if not isinstance(time, (int, float)) or unit is None:
            continue
        for counter in RATE_COUNTERS:
            value = row.get(counter)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                work.setdefault(name, {}).setdefault(counter, []).append(value * time * unit)
    return {name: {counter: statistics.median(samples) / statistics.median(run.benchmarks[name].times_ns.values())
                   for counter, samples in counters.items()}
            for name, counters in work.items()}


def _speedup(run, name, reference_name):
    """time(reference) / time(NAME), medians both, so that it agrees with the times shown; None
    without a reference."""
    if reference_name is None or reference_name == name:
        return None
    return (statistics.median(run.benchmarks[reference_name].times_ns.values())
            / statistics.median(run.benchmarks[name].times_ns.values()))


def _figures(family, counters):
    cells = []
    if "bytes_per_second" in counters:
        cells.append(f"{counters['bytes_per_second'] / 1e6:.1f} MB/s")
    if "items_per_second" in counters:
        unit = ITEM_UNITS.get(family.split("/")[0], DEFAULT_ITEM_UNIT)
        cells.append(f"{counters['items_per_second'] / 1e6:.2f} {unit}")
    # Memory-bound kernels (decoding) report bytes as well as flops: the bytes come first, as the
    # table shows two figures.
    if "GBps" in counters:
        cells.append(f"{counters['GBps']:.1f} GB/s")
    if "bandwidth_fraction" in counters:
        cells.append(f"{counters['bandwidth_fraction'] * 100:.0f}% of bandwidth")
    if "GFLOPS" in counters:
        cells.append(f"{counters['GFLOPS']:.1f} GFLOP/s")
    if "peak_fraction" in counters:
        cells.append(f"{counters['peak_fraction'] * 100:.0f}% of peak")
    return cells


def summary_table(run):
    """The Table of RUN: a heading row per family, then one row per benchmark, in the run's order
    of registration (families stay together)."""
    counters = _rates(run)
    by_family = {}
    for name in run.benchmarks:
        by_family.setdefault(placement(name).family, []).append(name)
    by_placement = {placement(name).key: name for name in run.benchmarks}
    rows = []
    for family, names in by_family.items():
        rows.append([family, "", "", "", ""])
        for name in names:
            where = placement(name)
            figures = _figures(family, counters.get(name, {})) + ["", ""]
            speedup = _speedup(run, name, by_placement.get(where.reference_key))
            speedup_text = f"{format_speedup(speedup)} {where.reference_member}" if speedup is not None else ""
            median = statistics.median(run.benchmarks[name].times_ns.values())
            rows.append(["  " + where.member, format_duration(median), figures[0], figures[1], speedup_text])
    headers = ["benchmark", "time", "throughput", "", "speedup over"]
    return Table(headers, rows, frozenset({1, 2, 3, 4}))


def render_summary(run):
    repetitions = max((len(samples.times_ns) for samples in run.benchmarks.values()), default=0)
    heading = (f"Results: medians of {repetitions} repetition{'s' if repetitions != 1 else ''} "
               f"(MB/s = 10^6 bytes/s), from {run.path}")
    return heading + "\n\n" + render_text_table(summary_table(run))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(f"usage: {PROGRAM} RUN.json\n\n{__doc__}", file=sys.stderr if len(argv) != 1 else sys.stdout)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    try:
        print(render_summary(load_benchmark_run(argv[0])))
    except UnusableInput as error:
        print_problems(PROGRAM, error.messages)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
