"""What scripts/plot draws, as plain data: panels of horizontal bars, built from a
ComparisonReport (two runs) or from one run. bar_chart.py draws them; nothing here needs
matplotlib, so the tests check the numbers with the standard library alone."""

import math
import statistics
from dataclasses import dataclass
from typing import Optional

from .benchmark_counters import COUNTERS
from .count_comparison import VERDICT_WORDS
from .report_rendering import format_p_value, format_speedup
from .speedup_ratios import ratio_samples
from .unusable_input import UnusableInput
from .verdicts import Verdict


@dataclass(frozen=True)
class Bar:
    label: str
    value: float  # where the bar ends; log panels start bars at 1, linear ones at 0
    text: str  # printed beside the bar
    verdict: Optional[Verdict] = None  # colours the bar; None: neutral
    # The values that count as unchanged (compare's minimum effect), shaded behind the bar;
    # an end is None where the band is open on that side.
    band: Optional[tuple] = None
    baseline: Optional[float] = None  # drawn as a second, outlined bar above this one
    spread: Optional[tuple] = None  # (smallest, largest) repetition, drawn as a whisker


@dataclass(frozen=True)
class Panel:
    title: str
    axis_label: str
    bars: list
    log_scale: bool  # log panels show speedups: 1 is "no change" and is marked
    symmetric: bool = False  # log axis centred on 1 (as far below as above)
    percent: bool = False  # values are fractions, shown as percentages


def comparison_panels(report):
    """The speedups of CURRENT over BASELINE per benchmark, then the speedup ratios of both."""
    gates = "gates" if report.times_gate else "information"
    panels = [Panel(
        f"Speedup per benchmark: baseline median / current median ({gates})",
        "speedup (> 1: current is faster); shaded: within the minimum effect",
        [_time_bar(comparison, report.times_gate) for comparison in report.benchmarks],
        log_scale=True, symmetric=True)]
    if report.ratios:
        gates = "information" if report.times_gate else "gates"
        panels.append(Panel(
            f"Speedup ratios within each run: outlined baseline, filled current ({gates})",
            "speedup of the candidate over the reference; shaded: baseline within the minimum "
            "effect",
            [_ratio_bar(comparison, not report.times_gate) for comparison in report.ratios],
            log_scale=True))
    return panels


def comparison_subtitle(report):
    if report.times_gate:
        return "Same machine: the times gate, the speedup ratios are information."
    fields = ", ".join(difference.field for difference in report.machine_differences)
    reason = "--ratios-only" if report.ratios_only else f"the machines differ in {fields}"
    return f"Speedup ratios gate ({reason}); the times are information."


def single_run_panels(run, counters):
    """For one run: the median speedup of each member of a family over its reference (the
    pairs of SPEEDUP_RATIOS), then a panel per counter of COUNTERS the run has (COUNTERS'
    counter_samples). Raises UnusableInput if there is nothing to draw."""
    panels = []
    ratios = ratio_samples(run)
    unpaired = [ratio for ratio in ratios if not ratio.speedups]
    if unpaired:
        raise UnusableInput([f"{run.path}: {ratio.candidate} and {ratio.reference} share no "
                             "repetition index" for ratio in unpaired])
    if ratios:
        panels.append(Panel(
            "Speedup within the run: median over the repetitions (whisker: smallest to largest)",
            "speedup of the candidate over the reference (time of reference / time of candidate)",
            [_spread_bar(ratio.name, ratio.speedups, format_speedup) for ratio in ratios],
            log_scale=True))
    for counter in COUNTERS:
        by_benchmark = counters.get(counter.name)
        if not by_benchmark:
            continue
        percent = counter.unit == "%"
        panels.append(Panel(
            f"{counter.name}: median over the repetitions (whisker: smallest to largest)",
            counter.description, [
                _spread_bar(name, values, _percent_text if percent else _unit_text(counter.unit))
                for name, values in by_benchmark.items()],
            log_scale=False, percent=percent))
    if not panels:
        raise UnusableInput([
            f"{run.path} has nothing to plot: no family with both members of a speedup pair "
            f"and no {' or '.join(counter.name for counter in COUNTERS)} counter "
            f"(benchmarks: {', '.join(run.benchmarks) or 'none'})"])
    return panels


def count_panels(report):
    """The instruction-count comparison of scripts/compare --counts: per workload, baseline count
    / current count on the speedup axis, coloured by the gate's verdict (more instructions is
    `slower`), the counts within the workload's limit shaded."""
    bars = []
    for comparison in report.comparisons:
        ratio = comparison.baseline / comparison.current
        limit = comparison.threshold
        band = (1 / (1 + limit), 1 / (1 - limit) if limit < 1 else None)
        text = (f"{format_speedup(ratio)}  {VERDICT_WORDS[comparison.verdict]} "
                f"(instructions {comparison.change * 100:+.2f}%)")
        bars.append(Bar(comparison.name, ratio, text, comparison.verdict, band))
    return [Panel("Instructions per workload: baseline count / current count (gates)",
                  "> 1: current runs fewer instructions; shaded: within the limit", bars,
                  log_scale=True, symmetric=True)]


def bar_count(panels):
    return sum(len(panel.bars) for panel in panels)


def _time_bar(comparison, gates):
    speedup = 1 / (1 + comparison.change)  # baseline median / current median
    effect = comparison.min_effect
    # compare's `slower`: current > baseline * (1 + effect), i.e. speedup < 1 / (1 + effect);
    # `faster`: current < baseline * (1 - effect).
    band = (1 / (1 + effect), 1 / (1 - effect) if effect < 1 else None)
    text = (f"{format_speedup(speedup)}  {_verdict_text(comparison, gates)} "
            f"(time {comparison.change * 100:+.1f}%, p = {format_p_value(comparison.p_value)})")
    return Bar(comparison.name, speedup, text, comparison.verdict, band)


def _ratio_bar(comparison, gates):
    baseline, current, effect = (comparison.baseline_median, comparison.current_median,
                                 comparison.min_effect)
    band = (baseline * (1 - effect) if effect < 1 else None, baseline * (1 + effect))
    text = (f"{format_speedup(baseline)} -> {format_speedup(current)}  "
            f"{_verdict_text(comparison, gates)} ({comparison.change * 100:+.1f}%, "
            f"p = {format_p_value(comparison.p_value)})")
    return Bar(comparison.name, current, text, comparison.verdict, band, baseline)


def _spread_bar(label, values, format_value):
    median = statistics.median(values)
    return Bar(label, median, format_value(median), spread=(min(values), max(values)))


def _verdict_text(comparison, gates):
    """As compare writes it: a change that does not gate is `(info)`."""
    if comparison.verdict is not Verdict.SAME and not gates:
        return f"{comparison.verdict.value} (info)"
    return comparison.verdict.value


def _percent_text(value):
    return f"{value * 100:.1f}%"


def _unit_text(unit):
    def text(value):
        digits = max(0, 2 - math.floor(math.log10(abs(value)))) if value else 0
        return f"{value:.{digits}f} {unit}"
    return text
