"""The JSON scripts/peers writes is Google Benchmark's: scripts/compare reads it, rates and all."""

import json
import tempfile
import unittest
from pathlib import Path

import repository  # noqa: F401  (makes peerbench and benchcompare importable)
from benchcompare.benchmark_run import load_benchmark_run
from peerbench.results import aggregates, iteration_record


class ResultsTest(unittest.TestCase):
    def test_rows_are_per_iteration_and_rates_per_second_of_their_clock(self):
        # 10 iterations in 2 ms of wall time and 1 ms of CPU: 1,000 bytes and 100 tokens each.
        single = iteration_record("gigatoken/long_encoding", 3, 2, 1, 10, 2_000_000, 1_000_000,
                                  {"bytes_per_second": 1000, "items_per_second": 100})
        self.assertEqual((single["real_time"], single["cpu_time"], single["repetition_index"]), (200000.0, 100000.0, 1))
        self.assertEqual(single["bytes_per_second"], 1000 * 10 / 0.001)  # by CPU time
        batch = iteration_record("gigatoken/encode_batch/real_time", 0, 1, 0, 10, 2_000_000, 1_000_000,
                                 {"bytes_per_second": 1000})
        self.assertEqual(batch["bytes_per_second"], 1000 * 10 / 0.002)  # by wall time

    def test_compare_reads_the_rows_and_aggregates(self):
        rows = [iteration_record("tiktoken/short_encoding", 0, 3, i, 100, real, real, {"bytes_per_second": 60})
                for i, real in enumerate((1_000_000, 1_100_000, 900_000))]
        document = {"context": {}, "benchmarks": rows + aggregates(rows)}
        self.assertEqual([row["aggregate_name"] for row in document["benchmarks"][3:]],
                         ["mean", "median", "stddev", "cv"])
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "peers.json"
            path.write_text(json.dumps(document), encoding="utf-8")
            run = load_benchmark_run(str(path))
        samples = run.benchmarks["tiktoken/short_encoding"]
        self.assertEqual(samples.times_ns, {0: 10000.0, 1: 11000.0, 2: 9000.0})
        self.assertTrue(samples.has_aggregates)


if __name__ == "__main__":
    unittest.main()
