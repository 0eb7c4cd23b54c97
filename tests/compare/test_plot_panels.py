"""What scripts/plot draws, as numbers (chart_panels, benchmark_counters): speedups, verdicts and
minimum-effect bands of a comparison, speedups and counters of one run. Standard library only;
test_plot_script checks the images."""

import copy
import tempfile
import unittest

import repository  # noqa: F401  (makes benchcompare importable)
from benchcompare.benchmark_counters import counter_samples
from benchcompare.benchmark_run import load_benchmark_run
from benchcompare.chart_panels import (bar_count, comparison_panels, comparison_subtitle,
                                       single_run_panels)
from benchcompare.comparison_report import compare_runs
from benchcompare.minimum_effects import DEFAULT_MINIMUM_EFFECTS
from benchcompare.unusable_input import UnusableInput
from benchcompare.verdicts import Verdict
from golden_files import GOLDEN_BENCHMARK_NAMES, golden_path, read_golden, write_document
from run_builder import make_run

RATIO_NAMES = [
    "short_encoding simd/serial",
    "short_encoding parallel/serial",
    "short_encoding simd_parallel/simd",
    "adversarial_encoding/digits simd/serial",
]

# Benchmarks named as benches/sdpa_bench.cpp names them, with its two counters per repetition.
SDPA_COUNTERS = {
    "sdpa/reference/batch:4/heads:8/seq_q:128/seq_k:128/dim:64/causal:0/real_time":
        ([2.0, 1.0, 4.0, 3.0, 5.0], [0.02, 0.01, 0.04, 0.03, 0.05]),
    "sdpa/flash/batch:4/heads:8/seq_q:128/seq_k:128/dim:64/causal:0/real_time":
        ([30.0, 10.0, 20.0, 50.0, 40.0], [0.3, 0.1, 0.2, 0.5, 0.4]),
}


def with_sdpa_rows(document):
    """DOCUMENT (a golden run) with SDPA_COUNTERS' benchmarks added: the repetitions and
    aggregate rows of short_encoding/serial renamed, with GFLOPS and peak_fraction set (aggregate
    rows get values unlike any repetition's, which must not be taken as samples)."""
    document = copy.deepcopy(document)
    template = [row for row in document["benchmarks"] if row["run_name"] == "short_encoding/serial"]
    family = max(row["family_index"] for row in document["benchmarks"]) + 1
    for offset, (name, (gflops, fractions)) in enumerate(SDPA_COUNTERS.items()):
        for source in template:
            row = dict(source, run_name=name, family_index=family + offset)
            if row["run_type"] == "iteration":
                row["name"] = name
                row["GFLOPS"] = gflops[row["repetition_index"]]
                row["peak_fraction"] = fractions[row["repetition_index"]]
            else:
                row["name"] = f"{name}_{row['aggregate_name']}"
                row["GFLOPS"] = row["peak_fraction"] = 1000.0
            document["benchmarks"].append(row)
    return document


def compare_golden(current):
    return compare_runs(load_benchmark_run(golden_path("baseline.json")),
                        load_benchmark_run(golden_path(current)), 0.05, DEFAULT_MINIMUM_EFFECTS,
                        5)


class ComparisonPanelsTest(unittest.TestCase):
    def test_a_bar_per_benchmark_and_per_ratio(self):
        times, ratios = comparison_panels(compare_golden("slower.json"))
        self.assertEqual([bar.label for bar in times.bars], GOLDEN_BENCHMARK_NAMES)
        self.assertEqual([bar.label for bar in ratios.bars], RATIO_NAMES)
        self.assertTrue(times.log_scale and times.symmetric)
        self.assertTrue(ratios.log_scale and not ratios.symmetric)
        self.assertIn("(gates)", times.title)
        self.assertIn("(information)", ratios.title)

    def test_speedup_is_baseline_median_over_current_median(self):
        report = compare_golden("slower.json")
        (times, _) = comparison_panels(report)
        serial = times.bars[0]
        self.assertAlmostEqual(serial.value, 1 / 1.1)
        self.assertAlmostEqual(serial.value,
                               report.benchmarks[0].baseline_median
                               / report.benchmarks[0].current_median)
        for bar in times.bars[1:]:
            self.assertAlmostEqual(bar.value, 1.0)
        # 10% slower is at the default limit of 10%: the same, as compare says.
        self.assertIs(serial.verdict, Verdict.SAME)
        self.assertEqual(serial.text, "0.91x  same (time +10.0%, p = 0.0079)")

    def test_bands_are_the_minimum_effects(self):
        (times, ratios) = comparison_panels(compare_golden("baseline.json"))
        bands = {bar.label: bar.band for bar in times.bars}
        for name, effect in (("short_encoding/serial", 0.1),
                             ("short_encoding/parallel/real_time", 0.3),
                             ("adversarial_encoding/digits/simd", 0.2)):
            low, high = bands[name]
            self.assertAlmostEqual(low, 1 / (1 + effect))
            self.assertAlmostEqual(high, 1 / (1 - effect))
        # A ratio's band is around its baseline speedup, with the larger minimum effect of its
        # two benchmarks (30% for simd_parallel over simd).
        bar = ratios.bars[2]
        self.assertEqual(bar.label, "short_encoding simd_parallel/simd")
        self.assertAlmostEqual(bar.band[0], bar.baseline * 0.7)
        self.assertAlmostEqual(bar.band[1], bar.baseline * 1.3)

    def test_other_machine_gates_on_ratios(self):
        report = compare_golden("other_machine.json")
        times, ratios = comparison_panels(report)
        self.assertIn("(information)", times.title)
        self.assertIn("(gates)", ratios.title)
        self.assertEqual(comparison_subtitle(report),
                         "Speedup ratios gate (the machines differ in num_cpus, mhz_per_cpu, "
                         "caches, simd_isa); the times are information.")
        self.assertIs(times.bars[0].verdict, Verdict.FASTER)
        self.assertAlmostEqual(times.bars[0].value, 2.0)
        self.assertTrue(times.bars[0].text.startswith("2.00x  faster (info) (time -50.0%"))
        falling = ratios.bars[2]
        self.assertIs(falling.verdict, Verdict.SLOWER)
        self.assertAlmostEqual(falling.value / falling.baseline, 0.625)
        self.assertIn(" slower (-37.5%, p = 0.0079)", falling.text)
        self.assertEqual([bar.verdict for bar in ratios.bars].count(Verdict.SLOWER), 1)

    def test_same_machine_subtitle(self):
        self.assertEqual(comparison_subtitle(compare_golden("noise.json")),
                         "Same machine: the times gate, the speedup ratios are information.")


class SingleRunPanelsTest(unittest.TestCase):
    def test_median_speedups_with_their_spread(self):
        run = make_run("a.json", {
            "long_encoding/serial": [8.0, 9.0, 10.0],
            "long_encoding/simd": [4.0, 3.0, 2.0],
            "long_encoding/regex": [1.0, 1.0, 1.0],
        })
        (panel,) = single_run_panels(run, {})
        (bar,) = panel.bars
        self.assertEqual(bar.label, "long_encoding simd/serial")
        self.assertEqual(bar.value, 3.0)  # median of 2, 3, 5
        self.assertEqual(bar.spread, (2.0, 5.0))
        self.assertEqual(bar.text, "3.00x")
        self.assertIsNone(bar.verdict)
        self.assertTrue(panel.log_scale)

    def test_counters_of_the_golden_run(self):
        with tempfile.TemporaryDirectory() as directory:
            path = write_document(directory, "sdpa.json", with_sdpa_rows(read_golden(
                "baseline.json")))
            run = load_benchmark_run(path)
            panels = single_run_panels(run, counter_samples(run))
        speedups, gflops, fractions = panels
        self.assertEqual([bar.label for bar in speedups.bars], RATIO_NAMES)
        reference, flash = SDPA_COUNTERS
        self.assertEqual([bar.label for bar in gflops.bars], [reference, flash])
        self.assertEqual([(bar.value, bar.spread) for bar in gflops.bars],
                         [(3.0, (1.0, 5.0)), (30.0, (10.0, 50.0))])
        self.assertEqual([bar.text for bar in gflops.bars], ["3.00 GFLOP/s", "30.0 GFLOP/s"])
        self.assertFalse(gflops.log_scale or gflops.percent)
        self.assertTrue(fractions.percent)
        self.assertEqual([bar.text for bar in fractions.bars], ["3.0%", "30.0%"])
        self.assertEqual(bar_count(panels), 8)

    def test_nothing_to_plot(self):
        run = make_run("a.json", {"f/serial": [1.0], "g/simd": [1.0]})
        with self.assertRaises(UnusableInput) as raised:
            single_run_panels(run, {})
        self.assertEqual(raised.exception.messages, [
            "a.json has nothing to plot: no family with both members of a speedup pair and no "
            "GFLOPS or peak_fraction counter (benchmarks: f/serial, g/simd)"])

    def test_a_pair_without_common_repetitions(self):
        run = make_run("a.json", {"f/serial": [1.0], "f/simd": [1.0, 2.0]})
        del run.benchmarks["f/simd"].times_ns[0]
        with self.assertRaises(UnusableInput) as raised:
            single_run_panels(run, {})
        self.assertEqual(raised.exception.messages,
                         ["a.json: f/simd and f/serial share no repetition index"])


class CounterSamplesTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def load(self, document):
        return load_benchmark_run(write_document(self.directory.name, "run.json", document))

    def test_repetitions_in_the_order_of_registration(self):
        document = with_sdpa_rows(read_golden("baseline.json"))
        document["benchmarks"].reverse()
        samples = counter_samples(self.load(document))
        self.assertEqual(list(samples), ["GFLOPS", "peak_fraction"])
        for position, counter in enumerate(samples):
            self.assertEqual(list(samples[counter]), list(SDPA_COUNTERS))
            for name, values in samples[counter].items():
                self.assertEqual(values, SDPA_COUNTERS[name][position][::-1])

    def test_benchmarks_of_the_run_only(self):
        run = self.load(with_sdpa_rows(read_golden("baseline.json")))
        reference, flash = SDPA_COUNTERS
        del run.benchmarks[flash]  # as --filter leaves it
        self.assertEqual(counter_samples(run), {
            "GFLOPS": {reference: SDPA_COUNTERS[reference][0]},
            "peak_fraction": {reference: SDPA_COUNTERS[reference][1]},
        })

    def test_a_run_without_counters(self):
        self.assertEqual(counter_samples(load_benchmark_run(golden_path("baseline.json"))), {})

    def test_a_counter_that_is_no_number(self):
        document = with_sdpa_rows(read_golden("baseline.json"))
        index, row = next((index, row) for index, row in enumerate(document["benchmarks"])
                          if "GFLOPS" in row)
        row["GFLOPS"] = "fast"
        run = self.load(document)
        with self.assertRaises(UnusableInput) as raised:
            counter_samples(run)
        self.assertEqual(raised.exception.messages, [
            f'{run.path}: row {index} of "benchmarks" ({row["name"]}) has a "GFLOPS" that is '
            "not a finite number: 'fast'"])


if __name__ == "__main__":
    unittest.main()
