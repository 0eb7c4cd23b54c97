"""run_summary.py: one run at a glance, one line per benchmark grouped by family."""

import subprocess
import sys
import tempfile
import unittest

from golden_files import write_document
from repository import SCRIPTS_DIR

from benchcompare.benchmark_run import load_benchmark_run
from benchcompare.run_summary import placement, render_summary, summary_table


def rows(name, times, **counters):
    """Iteration rows of NAME, one per time (in ns); each counter's value at repetition i is given
    per unit of time as Google Benchmark computes rates: WORK / time_i."""
    out = []
    for index, time in enumerate(times):
        row = {"name": name, "run_name": name, "run_type": "iteration", "repetitions": len(times),
               "repetition_index": index, "real_time": time, "cpu_time": time, "time_unit": "ns"}
        for counter, work in counters.items():
            row[counter] = work / (time * 1e-9)
        out.append(row)
    return out


class SummaryTest(unittest.TestCase):
    def setUp(self):
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        self.directory = directory.name

    def run_of(self, *row_lists):
        benchmarks = [row for row_list in row_lists for row in row_list]
        path = write_document(self.directory, "run.json", {"context": {}, "benchmarks": benchmarks})
        return load_benchmark_run(path)

    def table_rows(self, run):
        return {row[0].strip(): row[1:] for row in summary_table(run).rows}

    def test_figures_agree_with_the_median_time(self):
        run = self.run_of(rows("long_encoding/serial", [1000.0, 4000.0, 2000.0], bytes_per_second=5000,
                               items_per_second=1000))
        # Median time 2000 ns: 5000 bytes / 2 us = 2,500 MB/s; 1000 tokens / 2 us = 500 Mtok/s.
        self.assertEqual(self.table_rows(run)["serial"], ["2.000 us", "2500.0 MB/s", "500.00 Mtok/s", ""])

    def test_speedups_over_the_reference_of_each_family(self):
        run = self.run_of(
            rows("long_encoding/serial", [400.0] * 3),
            rows("long_encoding/simd", [100.0] * 3),
            rows("long_encoding/parallel/real_time", [200.0] * 3),
            rows("pretokenization/scalar", [50.0] * 3),
            rows("pretokenization/regex", [1000.0] * 3),
            rows("vocabulary_load/cl100k_base", [10.0] * 3),
        )
        table = summary_table(run)
        self.assertEqual([row[0] for row in table.rows],
                         ["long_encoding", "  serial", "  simd", "  parallel", "pretokenization", "  scalar",
                          "  regex", "vocabulary_load", "  cl100k_base"])
        speedups = {row[0].strip(): row[4] for row in table.rows}
        self.assertEqual(speedups["serial"], "")
        self.assertEqual(speedups["simd"], "4.00x serial")
        self.assertEqual(speedups["parallel"], "2.00x serial")
        self.assertEqual(speedups["scalar"], "20.00x regex")
        self.assertEqual(speedups["cl100k_base"], "")  # no serial member: no speedup

    def test_sdpa_is_listed_by_implementation_against_the_reference_at_the_same_shape(self):
        small = "batch:1/heads:1/seq_q:8/seq_k:8/dim:8/causal:0"
        large = "batch:1/heads:1/seq_q:64/seq_k:64/dim:8/causal:0"
        run = self.run_of(
            rows(f"sdpa/reference/{small}/real_time", [900.0] * 3, GFLOPS=1e-9 * 900, peak_fraction=0.01 * 900e-9),
            rows(f"sdpa/flash/{small}/real_time", [30.0] * 3, GFLOPS=1e-9 * 900, peak_fraction=0.01 * 900e-9),
            rows(f"sdpa/flash/{large}/real_time", [300.0] * 3, GFLOPS=1e-9 * 900),
        )
        table = summary_table(run)
        self.assertEqual([row[0] for row in table.rows], ["sdpa/reference", f"  {small}", "sdpa/flash", f"  {small}",
                                                          f"  {large}"])
        self.assertEqual(table.rows[3][1:], ["30.00 ns", "30.0 GFLOP/s", "30% of peak", "30.00x reference"])
        self.assertEqual(table.rows[4][4], "")  # no reference at that shape

    def test_decoding_is_listed_by_implementation_against_flash_with_its_bytes_first(self):
        shape = "batch:1/heads:32/kv_heads:8/seq_q:1/seq_k:4096/dim:128"
        run = self.run_of(
            rows(f"sdpa_decode/flash/{shape}/real_time", [400.0] * 3, GBps=1e-9 * 800, GFLOPS=1e-9 * 1600),
            rows(f"sdpa_decode/decode/{shape}/real_time", [100.0] * 3, GBps=1e-9 * 800, GFLOPS=1e-9 * 1600,
                 bandwidth_fraction=0.5 * 100e-9, peak_fraction=0.1 * 100e-9),
        )
        table = summary_table(run)
        self.assertEqual([row[0] for row in table.rows],
                         ["sdpa_decode/flash", f"  {shape}", "sdpa_decode/decode", f"  {shape}"])
        self.assertEqual(table.rows[3][1:], ["100.0 ns", "8.0 GB/s", "50% of bandwidth", "4.00x flash"])

    def test_placement(self):
        self.assertEqual((placement("adversarial_encoding/digits/parallel/real_time").family,
                          placement("adversarial_encoding/digits/parallel/real_time").member),
                         ("adversarial_encoding/digits", "parallel"))
        flash = placement("sdpa/opencl_cpu/batch:4/heads:8/seq_q:128/seq_k:128/dim:64/causal:0/manual_time")
        self.assertEqual((flash.family, flash.member, flash.reference_key),
                         ("sdpa/opencl_cpu", "batch:4/heads:8/seq_q:128/seq_k:128/dim:64/causal:0",
                          "sdpa/reference/batch:4/heads:8/seq_q:128/seq_k:128/dim:64/causal:0"))

    def test_heading_names_the_repetitions_and_the_file(self):
        run = self.run_of(rows("decode/long_encoding", [5.0, 6.0]))
        self.assertTrue(render_summary(run).startswith(
            f"Results: medians of 2 repetitions (MB/s = 10^6 bytes/s), from {run.path}\n\nbenchmark"))

    def test_command_line(self):
        path = write_document(self.directory, "run.json", {"context": {}, "benchmarks": rows("decode/x", [5.0])})
        result = subprocess.run([sys.executable, "-m", "benchcompare.run_summary", path], capture_output=True,
                                text=True, check=False, cwd=SCRIPTS_DIR)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"\ndecode\n  x +5.000 ns\n")
        missing = subprocess.run([sys.executable, "-m", "benchcompare.run_summary", f"{self.directory}/none.json"],
                                 capture_output=True, text=True, check=False, cwd=SCRIPTS_DIR)
        self.assertEqual(missing.returncode, 2)
        self.assertIn("cannot read", missing.stderr)


if __name__ == "__main__":
    unittest.main()
