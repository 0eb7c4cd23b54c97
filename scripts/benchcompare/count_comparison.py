"""Two runs of the instruction-count gate compared workload by workload. Counts repeat exactly,
so no statistics: a workload regressed if its count grew by more than its threshold."""

from dataclasses import dataclass

from .instruction_count_run import KEY_FIELDS
from .minimum_effects import MinimumEffect, minimum_effect_for
from .tables import Table, render_markdown_table, render_text_table
from .unusable_input import UnusableInput
from .verdicts import Verdict, verdict_of_change

DEFAULT_THRESHOLDS = (MinimumEffect("*", 1.0, "instruction counts repeat exactly"),)

# How the report words each verdict: more instructions is the regression.
VERDICT_WORDS = {Verdict.SLOWER: "more", Verdict.FASTER: "fewer", Verdict.SAME: "same"}


@dataclass(frozen=True)
class CountComparison:
    name: str
    baseline: int
    current: int
    change: float  # current / baseline - 1
    threshold: float  # fraction of the baseline a change must exceed
    verdict: Verdict  # SLOWER: more instructions, a regression


@dataclass(frozen=True)
class CountReport:
    comparisons: list
    not_compared: list  # workloads only in the current run

    def regressions(self):
        return [comparison for comparison in self.comparisons if comparison.verdict is Verdict.SLOWER]


def compare_counts(baseline, current, rules):
    """`baseline` and `current` are (context, counts) of load_counts; `rules` the thresholds,
    the last matching rule winning. Raises UnusableInput if the runs cannot be compared."""
    (baseline_context, baseline_counts), (current_context, current_counts) = baseline, current
    problems = [f"the counts were made with another {field}: {baseline_context.get(field)!r} in the baseline, "
                f"{current_context.get(field)!r} now; record a baseline for this one "
                "(scripts/bench --counts --save-baseline)"
                for field in KEY_FIELDS if baseline_context.get(field) != current_context.get(field)]
    missing = [name for name in baseline_counts if name not in current_counts]
    if missing:
        problems.append(f"workloads of the baseline missing from the current run: {', '.join(missing)}")
    if problems:
        raise UnusableInput(problems)
    comparisons = []
    for name, base in baseline_counts.items():
        now = current_counts[name]
        change = now / base - 1
        threshold = minimum_effect_for(name, rules)
        comparisons.append(CountComparison(name, base, now, change, threshold, verdict_of_change(change, threshold)))
    return CountReport(comparisons, [name for name in current_counts if name not in baseline_counts])


def render_count_report(report, markdown=False):
    render_table = render_markdown_table if markdown else render_text_table
    rows = []
    for comparison in report.comparisons:
        verdict = VERDICT_WORDS[comparison.verdict]
        if markdown and comparison.verdict is Verdict.SLOWER:
            verdict = f"**{verdict}**"
        rows.append([f"`{comparison.name}`" if markdown else comparison.name, f"{comparison.baseline:,}",
                     f"{comparison.current:,}", f"{comparison.change * 100:+.3f}%",
                     f"{comparison.threshold * 100:g}%", verdict])
    headers = ["workload", "baseline", "current", "change", "limit", "verdict"]
    note = "Instruction counts (callgrind, per iteration) gate: a workload regresses if its count grows past its limit."
    sections = [f"**{note}**" if markdown else note, render_table(Table(headers, rows, frozenset({1, 2, 3, 4})))]
    if report.not_compared:
        sections.append(f"Not compared: {len(report.not_compared)} workload"
                        f"{'s' if len(report.not_compared) != 1 else ''} the baseline does not have yet: "
                        + ", ".join(report.not_compared))
    regressions = report.regressions()
    tally = ", ".join(f"{sum(1 for c in report.comparisons if c.verdict is verdict)} {word}"
                      for verdict, word in VERDICT_WORDS.items())
    outcome = f"{len(regressions)} regression{'s' if len(regressions) != 1 else ''}" if regressions else "no regression"
    sections.append(f"{'**Summary:** ' if markdown else 'Summary: '}{outcome}; "
                    f"{len(report.comparisons)} workloads: {tally}.")
    if regressions:
        lines = ["**Regressions:**" if markdown else "Regressions:"]
        for comparison in regressions:
            name = f"`{comparison.name}`" if markdown else comparison.name
            lines.append(f"{'-' if markdown else ' '} {name}: {comparison.change * 100:+.3f}% "
                         f"(limit {comparison.threshold * 100:g}%)")
        sections.append("\n".join(lines))
    return "\n\n".join(sections)
