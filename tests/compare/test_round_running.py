"""round_running.py: build/benches in rounds, with progress, merged into one run."""

import io
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

from repository import SCRIPTS_DIR

from benchcompare.round_running import Progress, TimeLeft, finished_benchmark, format_clock

NAMES = ["short_encoding/serial", "short_encoding/simd",
         "sdpa/flash/batch:1/heads:1/seq_q:8/seq_k:8/dim:8/causal:0/real_time"]

# A stand-in for build/benches: lists NAMES, or runs them once each in the order of FAKE_ORDER
# (default: as listed), printing a console line per benchmark and writing the JSON rows. FAKE_SKIP
# names one to leave out, FAKE_STATUS an exit status, FAKE_ROUNDS_FILE counts its runs.
FAKE_BENCHES = textwrap.dedent(f"""\
    import json, os, sys
    names = {NAMES!r}
    if "--benchmark_list_tests=true" in sys.argv:
        print("\\n".join(names))
        sys.exit(0)
    counter = os.environ["FAKE_ROUNDS_FILE"]
    run = int(open(counter).read() or 0) if os.path.exists(counter) else 0
    open(counter, "w").write(str(run + 1))
    out = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--benchmark_out=")][-1]
    print("Running fake benches", file=sys.stderr)
    rows = []
    for name in names:
        if name == os.environ.get("FAKE_SKIP"):
            continue
        time = 100.0 + run
        print(f"{{name:<40}} {{time}} ns {{time}} ns 1000", flush=True)
        rows.append({{"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
                     "repetition_index": 0, "real_time": time, "cpu_time": time, "time_unit": "ns"}})
    json.dump({{"context": {{"run": run}}, "benchmarks": rows}}, open(out, "w"))
    sys.exit(int(os.environ.get("FAKE_STATUS", "0")))
    """)


class RunRoundsTest(unittest.TestCase):
    def setUp(self):
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        self.dir = Path(directory.name)
        (self.dir / "benches.py").write_text(FAKE_BENCHES, encoding="utf-8")

    def run_rounds(self, rounds, **environment):
        command = [sys.executable, "-m", "benchcompare.round_running", "--rounds", str(rounds),
                   "--out", str(self.dir / "run.json"), "--log", str(self.dir / "log.txt"), "--",
                   sys.executable, str(self.dir / "benches.py"), "--benchmark_filter=x"]
        env = dict(os.environ, FAKE_ROUNDS_FILE=str(self.dir / "runs"), **environment)
        return subprocess.run(command, capture_output=True, text=True, check=False, cwd=SCRIPTS_DIR, env=env,
                              timeout=60)

    def test_round_i_is_repetition_i_and_the_console_goes_to_the_log(self):
        result = self.run_rounds(3)
        self.assertEqual(result.returncode, 0, result.stderr)
        merged = json.loads((self.dir / "run.json").read_text(encoding="utf-8"))
        self.assertEqual(merged["context"], {"run": 0})
        rows = merged["benchmarks"]
        self.assertEqual(sorted((row["name"], row["repetition_index"], row["cpu_time"]) for row in rows),
                         sorted((name, i, 100.0 + i) for name in NAMES for i in range(3)))
        log = (self.dir / "log.txt").read_text(encoding="utf-8")
        self.assertEqual(log.count("Running fake benches"), 3)
        self.assertIn("# round 3 of 3:", log)
        self.assertIn("--benchmark_filter=x --benchmark_repetitions=1", log)
        self.assertNotIn("Running fake benches", result.stdout + result.stderr)

    def test_progress_counts_every_benchmark_of_every_round(self):
        result = self.run_rounds(2)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stderr.splitlines()
        self.assertTrue(lines[0].startswith("Running 3 benchmarks, 2 rounds of each in shuffled order"), lines[0])
        progress = [line for line in lines if line.startswith("[")]
        # Without a terminal: a line for each tenth of the run (here every benchmark).
        self.assertEqual([line[:5] for line in progress], ["[1/6]", "[2/6]", "[3/6]", "[4/6]", "[5/6]", "[6/6]"])
        self.assertIn("round 2 of 2: " + NAMES[2], progress[-1])
        self.assertIn("about 0:00 left", progress[-1])
        self.assertTrue(lines[-1].startswith("Ran 3 benchmarks x 2 rounds in "), lines[-1])

    def test_verbose_prints_the_console_output_too(self):
        command_result = subprocess.run(
            [sys.executable, "-m", "benchcompare.round_running", "--rounds", "1", "--verbose",
             "--out", str(self.dir / "run.json"), "--log", str(self.dir / "log.txt"), "--",
             sys.executable, str(self.dir / "benches.py")],
            capture_output=True, text=True, check=False, cwd=SCRIPTS_DIR, timeout=60,
            env=dict(os.environ, FAKE_ROUNDS_FILE=str(self.dir / "runs")))
        self.assertEqual(command_result.returncode, 0, command_result.stderr)
        self.assertIn("Running fake benches", command_result.stdout)
        self.assertIn(NAMES[0], command_result.stdout)

    def test_a_failed_round_names_its_log(self):
        result = self.run_rounds(2, FAKE_STATUS="3")
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"failed with status 3 in round 1; its output is in {self.dir / 'log.txt'}", result.stderr)
        self.assertFalse((self.dir / "run.json").exists())

    def test_a_benchmark_missing_from_a_round_is_an_error(self):
        result = self.run_rounds(2, FAKE_SKIP=NAMES[1])
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"round 1 did not report 1 of 3 benchmarks (first: {NAMES[1]})", result.stderr)

    def test_nothing_to_run_is_an_error(self):
        result = subprocess.run([sys.executable, "-m", "benchcompare.round_running", "--rounds", "1", "--out",
                                 str(self.dir / "run.json"), "--log", str(self.dir / "log.txt"), "--", "true"],
                                capture_output=True, text=True, check=False, cwd=SCRIPTS_DIR, timeout=60)
        self.assertEqual(result.returncode, 2)
        self.assertIn("no benchmark matches the filter", result.stderr)


class TimeLeftTest(unittest.TestCase):
    def test_the_first_round_extrapolates_the_mean(self):
        estimate = TimeLeft(["a", "b", "c", "d"], rounds=2)
        estimate.record(0, "a", 3.0)
        self.assertEqual(estimate.seconds_left(0, {"a"}, elapsed=3.0, finished=1), 21.0)

    def test_later_rounds_take_each_benchmark_as_long_as_the_first(self):
        estimate = TimeLeft(["a", "b", "c"], rounds=3)
        for name, seconds in (("a", 1.0), ("b", 2.0), ("c", 4.0)):
            estimate.record(0, name, seconds)
        estimate.record(1, "c", 100.0)  # later rounds do not change the estimate
        # Round 2 of 3 (index 1) with c done: a and b left in it, then one whole round.
        self.assertEqual(estimate.seconds_left(1, {"c"}, elapsed=0.0, finished=4), 3.0 + 7.0)


class ProgressTest(unittest.TestCase):
    def test_without_a_terminal_a_line_per_tenth_of_the_run(self):
        stream = io.StringIO()
        progress = Progress(total=100, rounds=1, stream=stream)
        for finished in range(1, 101):
            progress.show(finished, elapsed=finished * 0.1, left=1.0, round_index=0, name="x")
        counts = [line.split("]")[0] for line in stream.getvalue().splitlines()]
        self.assertEqual(counts, ["[  1/100", "[ 10/100", "[ 20/100", "[ 30/100", "[ 40/100", "[ 50/100", "[ 60/100",
                                  "[ 70/100", "[ 80/100", "[ 90/100", "[100/100"])

    def test_without_a_terminal_a_line_at_least_every_30_seconds(self):
        stream = io.StringIO()
        progress = Progress(total=100, rounds=1, stream=stream)
        progress.show(1, elapsed=0.0, left=None, round_index=0, name="x")
        progress.show(2, elapsed=29.0, left=None, round_index=0, name="x")
        progress.show(3, elapsed=31.0, left=None, round_index=0, name="x")
        lines = stream.getvalue().splitlines()
        self.assertEqual(len(lines), 2)
        self.assertEqual(lines[1], "[  3/100] 0:31 elapsed, estimating the time left; round 1 of 1: x")

    def test_clock_format(self):
        self.assertEqual([format_clock(s) for s in (0, 59.4, 61, 3599, 3661)],
                         ["0:00", "0:59", "1:01", "59:59", "1:01:01"])

    def test_a_console_line_names_its_benchmark(self):
        names = {"short_encoding/serial"}
        self.assertEqual(finished_benchmark("short_encoding/serial     417 ns   416 ns  1680312\n", names),
                         "short_encoding/serial")
        self.assertEqual(finished_benchmark("short_encoding/serial ERROR OCCURRED: 'x'\n", names),
                         "short_encoding/serial")
        self.assertIsNone(finished_benchmark("Benchmark   Time   CPU   Iterations\n", names))
        self.assertIsNone(finished_benchmark("\n", names))


if __name__ == "__main__":
    unittest.main()
