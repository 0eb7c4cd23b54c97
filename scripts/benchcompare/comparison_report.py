"""Everything compared between two runs, and what of it gates."""

from dataclasses import dataclass

from .benchmark_matching import common_benchmarks
from .machine_fingerprint import fingerprint_differences
from .minimum_effects import minimum_effect_for
from .speedup_ratios import ratio_samples
from .unusable_input import UnusableInput
from .verdicts import Verdict, compare_samples


@dataclass(frozen=True)
class ComparisonReport:
    benchmarks: list  # of Comparison, of times
    ratios: list  # of Comparison, of speedups
    machine_differences: list  # of FieldDifference
    ratios_only: bool  # asked for on the command line

    @property
    def times_gate(self):
        """Either the times gate or the speedup ratios do, never both. Times mean something only
        between runs on the same kind of machine; there they are the direct measure, and a
        ratio also falls when its reference benchmark gets faster, which is no regression."""
        return not self.ratios_only and not self.machine_differences

    def regressions(self):
        gating = self.benchmarks if self.times_gate else self.ratios
        return [comparison for comparison in gating if comparison.verdict is Verdict.SLOWER]


def compare_runs(baseline, current, alpha, minimum_effects, min_repetitions, ratios_only=False):
    """Raises UnusableInput if the runs cannot be compared."""
    names = common_benchmarks(baseline, current, min_repetitions)
    benchmarks = [
        compare_samples(name, _times(baseline, name), _times(current, name), alpha,
                        minimum_effect_for(name, minimum_effects))
        for name in names
    ]
    # Both runs have the same benchmarks, hence the same ratios.
    current_ratios = {ratio.name: ratio for ratio in ratio_samples(current)}
    ratio_pairs = [(ratio, current_ratios[ratio.name]) for ratio in ratio_samples(baseline)]
    problems = [
        f"{run.path}: {ratio.candidate} and {ratio.reference} share only {len(ratio.speedups)} "
        f"repetition indices, fewer than --min-repetitions {min_repetitions}"
        for pair in ratio_pairs
        for run, ratio in zip((baseline, current), pair)
        if len(ratio.speedups) < min_repetitions
    ]
    if problems:
        raise UnusableInput(problems)
    ratios = [
        compare_samples(base_ratio.name, base_ratio.speedups, current_ratio.speedups, alpha,
                        # A ratio is as noisy as the noisier of its two benchmarks.
                        max(minimum_effect_for(base_ratio.candidate, minimum_effects),
                            minimum_effect_for(base_ratio.reference, minimum_effects)),
                        higher_is_faster=True)
        for base_ratio, current_ratio in ratio_pairs
    ]
    differences = fingerprint_differences(baseline.context, current.context)
    return ComparisonReport(benchmarks, ratios, differences, ratios_only)


def _times(run, name):
    return list(run.benchmarks[name].times_ns.values())
