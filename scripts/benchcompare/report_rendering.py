"""A ComparisonReport as text for a terminal or as GitHub markdown: what does not gate and why,
the times, the speedup ratios, a summary line, and the regressions last."""

import math

from .machine_fingerprint import describe_value
from .tables import Table, render_markdown_table, render_text_table
from .verdicts import Verdict

NUMBER_COLUMNS = frozenset({1, 2, 3, 4, 5})


def render_report(report, markdown=False):
    render_table = render_markdown_table if markdown else render_text_table
    sections = [_gating_note(report, markdown)]
    sections.append(render_table(_table("benchmark", report.benchmarks, format_duration,
                                        report.times_gate, markdown)))
    if report.ratios:
        sections.append(render_table(_table("speedup", report.ratios, format_speedup,
                                            not report.times_gate, markdown)))
    sections.append(("**Summary:** " if markdown else "Summary: ") + _summary(report))
    regressions = report.regressions()
    if regressions:
        sections.append(_regression_list(regressions, markdown))
    return "\n\n".join(sections)


def _gating_note(report, markdown):
    bullet = "-" if markdown else " "
    pairing = (" Paired runs: change is the median ratio of the pairs, p is Wilcoxon's signed-rank test."
               if report.paired else "")
    if report.times_gate:
        note = "Times gate (same machine fingerprint); speedup ratios are information." + pairing
        lines = []
        if report.drift is not None:
            lines.append(f"{bullet} drift of the machine: {(report.drift - 1) * 100:+.1f}%, the median change of the "
                         f"{len(report.benchmarks)} benchmarks; divided out of the current times shown and tested")
    else:
        reason = "--ratios-only" if report.ratios_only else "the machines differ"
        note = f"Speedup ratios gate ({reason}); changes of times are information." + pairing
        lines = [f"{bullet} {difference.field}: "
                 f"{describe_value(difference.field, difference.baseline)} -> "
                 f"{describe_value(difference.field, difference.current)}"
                 for difference in report.machine_differences]
    return "\n".join([f"**{note}**" if markdown else note] + lines)


def _table(title, comparisons, format_value, gates, markdown):
    rows = []
    for comparison in comparisons:
        verdict = comparison.verdict.value
        if comparison.verdict is not Verdict.SAME and not gates:
            verdict += " (info)"
        elif comparison.verdict is Verdict.SLOWER and markdown:
            verdict = f"**{verdict}**"
        rows.append([
            f"`{comparison.name}`" if markdown else comparison.name,
            format_value(comparison.baseline_median),
            format_value(comparison.current_median),
            f"{comparison.change * 100:+.1f}%",
            f"{comparison.min_effect * 100:g}%",
            format_p_value(comparison.p_value),
            verdict,
        ])
    headers = [title, "baseline", "current", "change", "limit", "p", "verdict"]
    return Table(headers, rows, NUMBER_COLUMNS)


def _summary(report):
    regressions = len(report.regressions())
    outcome = (f"{regressions} regression{'s' if regressions != 1 else ''}" if regressions
               else "no regression")
    benchmarks = f"{len(report.benchmarks)} benchmarks: {_counts(report.benchmarks)}"
    ratios = f"{len(report.ratios)} speedup ratios: {_counts(report.ratios)}"
    if report.times_gate:
        ratios += " (information)"
    else:
        benchmarks += " (information)"
    return f"{outcome}; {benchmarks}; {ratios}."


def _counts(comparisons):
    return ", ".join(
        f"{sum(1 for comparison in comparisons if comparison.verdict is verdict)} {verdict.value}"
        for verdict in Verdict)


def _regression_list(regressions, markdown):
    lines = ["**Regressions:**" if markdown else "Regressions:"]
    for comparison in regressions:
        name = f"`{comparison.name}`" if markdown else comparison.name
        lines.append(f"{'-' if markdown else ' '} {name}: {comparison.change * 100:+.1f}% "
                     f"(limit {comparison.min_effect * 100:g}%, p = "
                     f"{format_p_value(comparison.p_value)})")
    return "\n".join(lines)


def format_duration(nanoseconds):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if nanoseconds >= scale:
            return f"{_four_digits(nanoseconds / scale)} {unit}"
    return f"{_four_digits(nanoseconds)} ns"


def format_speedup(value):
    return f"{value:.2f}x"


def _four_digits(value):
    """Four significant digits, keeping trailing zeros so that columns line up."""
    decimals = max(0, 3 - math.floor(math.log10(value))) if value > 0 else 3
    return f"{value:.{decimals}f}"


def format_p_value(p_value):
    return "<0.0001" if p_value < 0.0001 else f"{p_value:.4f}"
