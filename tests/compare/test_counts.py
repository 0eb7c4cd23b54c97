"""The instruction-count gate's scripts on a real counting run (data/counts.json): scripts/compare
--counts, scripts/counts baseline and save, scripts/plot --counts, and callgrind's totals."""

import copy
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from golden_files import golden_path, read_golden, write_document
from repository import COMPARE_SCRIPT, SCRIPTS_DIR

from benchcompare.callgrind_counting import callgrind_total
from benchcompare.counts_cli import baseline_name
from benchcompare.unusable_input import UnusableInput

COUNTS = "counts.json"
SERIAL_LONG = "long_encoding/serial"
FLASH = "sdpa/flash/batch:1/heads:8/kv_heads:2/seq_q:128/seq_k:128/dim:64/causal:0"


def run_script(script, *arguments):
    return subprocess.run([sys.executable, str(script), *arguments], capture_output=True, text=True, check=False)


def with_counts_scaled(factors):
    """The golden counting run with the count of each workload in FACTORS multiplied by its factor."""
    document = read_golden(COUNTS)
    for row in document["benchmarks"]:
        if row["name"] in factors:
            row["instructions"] = round(row["instructions"] * factors[row["name"]])
    return document


class CompareCountsTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def compare(self, document, *options, baseline=None):
        current = write_document(self.directory.name, "current.json", document)
        return run_script(COMPARE_SCRIPT, "--counts", baseline or golden_path(COUNTS), current, *options)

    def test_unchanged_counts_pass(self):
        result = self.compare(read_golden(COUNTS))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Summary: no regression; 63 workloads: 0 more, 0 fewer, 63 same.", result.stdout)

    def test_a_count_past_one_percent_regresses_and_is_named(self):
        result = self.compare(with_counts_scaled({SERIAL_LONG: 1.011}))
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(f"Regressions:\n  {SERIAL_LONG}: +1.100% (limit 1%)", result.stdout)
        self.assertIn("1 regression; 63 workloads: 1 more, 0 fewer, 62 same.", result.stdout)

    def test_a_count_within_one_percent_passes(self):
        result = self.compare(with_counts_scaled({SERIAL_LONG: 1.009, FLASH: 0.991}))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("0 more, 0 fewer, 63 same", result.stdout)

    def test_fewer_instructions_are_reported_and_pass(self):
        result = self.compare(with_counts_scaled({FLASH: 0.9}))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, rf"{FLASH}\s+5,019,614\s+4,517,653\s+-10.000%\s+1%\s+fewer")

    def test_a_limit_per_workload_overrides_the_default(self):
        scaled = with_counts_scaled({FLASH: 1.02})
        self.assertEqual(self.compare(scaled).returncode, 1)
        result = self.compare(scaled, "--min-effect", "sdpa/flash/*=3")
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_markdown(self):
        result = self.compare(with_counts_scaled({SERIAL_LONG: 1.05}), "--markdown")
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"| `{SERIAL_LONG}` | 63,288,432 | 66,452,854 | +5.000% | 1% | **more** |", result.stdout)
        self.assertIn(f"- `{SERIAL_LONG}`: +5.000% (limit 1%)", result.stdout)

    def test_counts_of_another_isa_cap_are_refused(self):
        document = read_golden(COUNTS)
        document["context"]["isa_cap"] = "sse2"
        result = self.compare(document)
        self.assertEqual(result.returncode, 2)
        self.assertIn("made with another isa_cap: 'avx2' in the baseline, 'sse2' now", result.stderr)

    def test_a_missing_workload_is_an_error_and_a_new_one_is_listed(self):
        document = read_golden(COUNTS)
        row = document["benchmarks"].pop()
        result = self.compare(document)
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"missing from the current run: {row['name']}", result.stderr)
        renamed = copy.deepcopy(row)
        renamed["name"] = renamed["run_name"] = "decode/new_input"
        document["benchmarks"] += [row, renamed]
        result = self.compare(document)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Not compared: 1 workload the baseline does not have yet: decode/new_input", result.stdout)

    def test_a_filter_compares_a_subset(self):
        document = read_golden(COUNTS)
        document["benchmarks"] = [row for row in document["benchmarks"] if row["name"].startswith("sdpa/")]
        result = self.compare(document, "--filter", "^sdpa/")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("8 workloads: 0 more, 0 fewer, 8 same", result.stdout)

    def test_a_run_of_benches_is_not_a_counting_run(self):
        result = run_script(COMPARE_SCRIPT, "--counts", golden_path(COUNTS), golden_path("baseline.json"))
        self.assertEqual(result.returncode, 2)
        self.assertIn('has no positive whole "instructions" count', result.stderr)

    def test_counts_take_no_statistics_options(self):
        result = run_script(COMPARE_SCRIPT, "--counts", "--drift", golden_path(COUNTS), golden_path(COUNTS))
        self.assertEqual(result.returncode, 2)
        self.assertIn("--counts compares exact counts", result.stderr)


class StoredCountsTest(unittest.TestCase):
    def test_save_then_find_by_compiler_and_isa(self):
        with tempfile.TemporaryDirectory() as directory:
            counts = SCRIPTS_DIR / "counts"
            missing = run_script(counts, "baseline", golden_path(COUNTS), "--dir", directory)
            self.assertEqual(missing.returncode, 2)
            self.assertIn("no stored counts for gnu_12.2.0-release-avx2-avx2.json", missing.stderr)
            saved = run_script(counts, "save", golden_path(COUNTS), "--dir", directory)
            self.assertEqual(saved.returncode, 0, saved.stderr)
            found = run_script(counts, "baseline", golden_path(COUNTS), "--dir", directory)
            self.assertEqual(found.stdout.strip(), saved.stdout.strip())
            self.assertEqual(json.loads(Path(found.stdout.strip()).read_text()), read_golden(COUNTS))

    def test_the_key_ignores_the_machine(self):
        context = read_golden(COUNTS)["context"]
        self.assertEqual(baseline_name({**context, "host_name": "other", "date": "2027"}), baseline_name(context))
        self.assertNotEqual(baseline_name({**context, "compiler": "Clang 15.0.6"}), baseline_name(context))


class CallgrindTotalTest(unittest.TestCase):
    def test_the_totals_line_not_the_summary(self):
        # With --collect-atstart=no callgrind writes the summary of the whole run (0: nothing
        # collected at start) before the totals of what was collected.
        text = "version: 1\ncmd: bench_counts long_encoding/serial\nevents: Ir\nsummary: 0\n\nfn=(1) main\n16 3\ntotals: 63288432\n"
        self.assertEqual(callgrind_total(text, "out"), 63288432)

    def test_no_totals(self):
        with self.assertRaises(UnusableInput) as raised:
            callgrind_total("events: Ir\n", "callgrind.out")
        self.assertIn("callgrind.out has no callgrind totals line", raised.exception.messages[0])


class PlotCountsTest(unittest.TestCase):
    def test_draws_one_bar_per_workload(self):
        # Run as its first line says, with Debian's python3-matplotlib (test_plot_script.py).
        with tempfile.TemporaryDirectory() as directory:
            current = write_document(directory, "current.json", with_counts_scaled({SERIAL_LONG: 1.05}))
            out = str(Path(directory) / "counts.png")
            result = subprocess.run([str(SCRIPTS_DIR / "plot"), "--counts", golden_path(COUNTS), current, "-o", out],
                                    capture_output=True, text=True, check=False)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("63 bars", result.stdout)
            self.assertTrue(Path(out).read_bytes().startswith(b"\x89PNG"))


if __name__ == "__main__":
    unittest.main()
