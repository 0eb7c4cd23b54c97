"""scripts/compare run as a child process on the golden files: verdicts, exit status, output."""

import json
import re
import subprocess
import sys
import tempfile
import unittest

from golden_files import GOLDEN_BENCHMARK_NAMES, golden_path, read_golden, slowed_down, write_document
from repository import COMPARE_SCRIPT

# The golden baseline spreads its repetitions by +-2%, as a quiet machine does, so 5% is that
# machine's limit; the default of 10% is the noise floor of the shared VM.
QUIET_MACHINE = ["--min-effect", "*=5"]

RATIO_NAMES = [
    "short_encoding simd/serial",
    "short_encoding parallel/serial",
    "short_encoding simd_parallel/simd",
    "adversarial_encoding/digits simd/serial",
]


def run_compare(*arguments):
    return subprocess.run([sys.executable, str(COMPARE_SCRIPT), *arguments],
                          capture_output=True, text=True, check=False)


def verdicts(output):
    """Name -> verdict column of every row of both text tables."""
    found = {}
    for line in output.splitlines():
        match = re.match(r"(\S+(?: \S+/\S+)?)\s+\S+ \w+\s+\S+ \w+\s+[-+][\d.]+%\s+[\d.]+%\s+"
                         r"\S+\s+(.+)$", line)
        if match:
            found[match.group(1)] = match.group(2)
    for line in output.splitlines():
        match = re.match(r"(\S+ \S+/\S+)\s+[\d.]+x\s+[\d.]+x\s+[-+][\d.]+%\s+[\d.]+%\s+\S+\s+(.+)$",
                         line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


class VerdictTest(unittest.TestCase):
    def compare(self, current, *options, expected_status):
        result = run_compare(golden_path("baseline.json"), golden_path(current), *options)
        self.assertEqual(result.returncode, expected_status, result.stdout + result.stderr)
        self.assertEqual(result.stderr, "")
        found = verdicts(result.stdout)
        self.assertEqual(list(found), GOLDEN_BENCHMARK_NAMES + RATIO_NAMES, result.stdout)
        return result.stdout, found

    def test_identical_runs_are_the_same(self):
        output, found = self.compare("baseline.json", expected_status=0)
        self.assertEqual(set(found.values()), {"same"})
        self.assertIn("Summary: no regression; 6 benchmarks: 0 slower, 0 faster, 6 same; "
                      "4 speedup ratios: 0 slower, 0 faster, 4 same (information).", output)
        self.assertNotIn("Regressions", output)

    def test_ten_percent_slower_is_slower(self):
        output, found = self.compare("slower.json", *QUIET_MACHINE, expected_status=1)
        self.assertEqual(found["short_encoding/serial"], "slower")
        self.assertEqual([name for name, verdict in found.items() if verdict != "same"],
                         ["short_encoding/serial", "short_encoding simd/serial",
                          "short_encoding parallel/serial"])
        # simd and parallel are now faster relative to serial: information on one machine.
        self.assertEqual(found["short_encoding simd/serial"], "faster (info)")
        self.assertTrue(output.endswith(
            "Regressions:\n  short_encoding/serial: +10.0% (limit 5%, p = 0.0079)\n"), output)

    def test_ten_percent_slower_is_at_the_default_limit(self):
        output, found = self.compare("slower.json", expected_status=0)
        self.assertEqual(found["short_encoding/serial"], "same")
        self.assertRegex(output, r"short_encoding/serial +411.7 ns +452.9 ns +\+10.0% +10% "
                                 r"+0.0079 +same")

    def test_ten_percent_faster_is_faster(self):
        output, found = self.compare("faster.json", *QUIET_MACHINE, expected_status=0)
        self.assertEqual(found["short_encoding/serial"], "faster")
        # A faster reference lowers the speedups over it; no regression on the same machine.
        self.assertEqual(found["short_encoding simd/serial"], "slower (info)")
        self.assertIn("Summary: no regression;", output)

    def test_noise_is_the_same(self):
        output, found = self.compare("noise.json", expected_status=0)
        self.assertEqual(set(found.values()), {"same"})
        # The medians moved by more than the limit; the overlapping repetitions decide.
        self.assertRegex(output, r"short_encoding/serial .* \+13.0% +10% +0.4524 +same")
        self.assertRegex(output, r"short_encoding/simd .* -12.9% +10% +0.5952 +same")

    def test_other_machine_gates_on_ratios(self):
        output, found = self.compare("other_machine.json", expected_status=1)
        self.assertTrue(output.startswith(
            "Speedup ratios gate (the machines differ); changes of times are information.\n"
            "  num_cpus: 2 -> 16\n"
            "  mhz_per_cpu: 2445 -> 3600\n"
            "  caches: L1 Data 32 KiB, L1 Instruction 32 KiB, L2 Unified 512 KiB, L3 Unified "
            "32 MiB (shared by 2) -> L1 Data 32 KiB, L1 Instruction 32 KiB, L2 Unified 512 KiB, "
            "L3 Unified 64 MiB (shared by 2)\n"
            "  simd_isa: avx2 -> avx512\n"), output)
        self.assertEqual(found["short_encoding/serial"], "faster (info)")
        self.assertEqual(found["short_encoding simd_parallel/simd"], "slower")
        self.assertEqual([name for name, verdict in found.items() if verdict == "slower"],
                         ["short_encoding simd_parallel/simd"])
        self.assertTrue(output.endswith(
            "Regressions:\n  short_encoding simd_parallel/simd: -37.5% (limit 30%, p = 0.0079)\n"),
            output)

    def test_slower_times_on_another_machine_do_not_gate(self):
        result = run_compare(golden_path("other_machine.json"), golden_path("baseline.json"))
        self.assertEqual(result.returncode, 0, result.stdout)
        found = verdicts(result.stdout)
        self.assertEqual(found["short_encoding/serial"], "slower (info)")
        self.assertEqual(found["short_encoding simd_parallel/simd"], "faster")

    def test_ratios_only(self):
        output, found = self.compare("slower.json", "--ratios-only", *QUIET_MACHINE,
                                     expected_status=0)
        self.assertTrue(output.startswith(
            "Speedup ratios gate (--ratios-only); changes of times are information.\n\n"))
        self.assertEqual(found["short_encoding/serial"], "slower (info)")
        self.assertEqual(found["short_encoding simd/serial"], "faster")

    def test_ratio_regression_with_ratios_only(self):
        _, found = self.compare("faster.json", "--ratios-only", *QUIET_MACHINE,
                                expected_status=1)
        self.assertEqual(found["short_encoding simd/serial"], "slower")
        self.assertEqual(found["short_encoding/serial"], "faster (info)")


class MarkdownTest(unittest.TestCase):
    def test_tables_summary_and_regressions(self):
        result = run_compare(golden_path("baseline.json"), golden_path("slower.json"),
                             "--markdown", *QUIET_MACHINE)
        self.assertEqual(result.returncode, 1)
        sections = result.stdout.rstrip("\n").split("\n\n")
        self.assertEqual(len(sections), 5, result.stdout)
        note, times, ratios, summary, regressions = sections
        self.assertEqual(note, "**Times gate (same machine fingerprint); speedup ratios are "
                               "information.**")
        for table, title, names in ((times, "benchmark", GOLDEN_BENCHMARK_NAMES),
                                    (ratios, "speedup", RATIO_NAMES)):
            lines = table.splitlines()
            self.assertEqual(lines[0], f"| {title} | baseline | current | change | limit | p | "
                                       "verdict |")
            self.assertEqual(lines[1], "| :--- | ---: | ---: | ---: | ---: | ---: | :--- |")
            self.assertEqual([line.split(" | ")[0] for line in lines[2:]],
                             [f"| `{name}`" for name in names])
            for line in lines[2:]:
                self.assertEqual(line.count(" | "), 6, line)
                self.assertTrue(line.startswith("| ") and line.endswith(" |"), line)
        self.assertIn("| `short_encoding/serial` | 411.7 ns | 452.9 ns | +10.0% | 5% | 0.0079 | "
                      "**slower** |", times)
        self.assertTrue(summary.startswith("**Summary:** 1 regression;"))
        self.assertEqual(regressions, "**Regressions:**\n"
                                      "- `short_encoding/serial`: +10.0% (limit 5%, p = 0.0079)")


class UnusableInputTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def assert_unusable(self, arguments, *messages):
        result = run_compare(*arguments)
        self.assertEqual(result.returncode, 2, result.stdout)
        self.assertEqual(result.stdout, "")
        self.assertEqual(result.stderr.splitlines(),
                         [f"scripts/compare: error: {message}" for message in messages])

    def baseline_variant(self, change):
        document = read_golden("baseline.json")
        change(document)
        return write_document(self.directory.name, "variant.json", document)

    def test_missing_file(self):
        missing = f"{self.directory.name}/missing.json"
        self.assert_unusable([golden_path("baseline.json"), missing],
                             f"cannot read {missing}: No such file or directory")

    def test_problems_of_both_files(self):
        missing = f"{self.directory.name}/missing.json"
        truncated = golden_path("truncated.json")
        self.assert_unusable([missing, truncated],
                             f"cannot read {missing}: No such file or directory",
                             f"{truncated} is not valid JSON: Expecting property name enclosed "
                             "in double quotes at line 5 column 1")

    def test_not_google_benchmark_json(self):
        path = golden_path("not_google_benchmark.json")
        self.assert_unusable([golden_path("baseline.json"), path],
                             f'{path} is not Google Benchmark JSON: it has no "benchmarks" list')

    def test_benchmark_error(self):
        path = golden_path("error_occurred.json")
        self.assert_unusable([path, golden_path("baseline.json")],
                             f"{path}: benchmark long_encoding/serial reported an error: "
                             '"cannot open data/corpus/en_shakespeare.txt"')

    def test_aggregates_only(self):
        path = golden_path("aggregates_only.json")
        message = (f"{path} holds only aggregate rows (_mean, _median, ...), as "
                   "--benchmark_report_aggregates_only writes them: the test needs one row per "
                   "repetition; run build/benches with --benchmark_repetitions=5 (or more) and "
                   "without --benchmark_report_aggregates_only")
        self.assert_unusable([path, path], message, message)

    def test_renamed_benchmark(self):
        def rename(document):
            for row in document["benchmarks"]:
                if row["run_name"] == "short_encoding/simd":
                    row["name"] = row["run_name"] = "short_encoding/simd_avx2"
        baseline = golden_path("baseline.json")
        variant = self.baseline_variant(rename)
        self.assert_unusable(
            [baseline, variant],
            f"short_encoding/simd is only in {baseline} (renamed? {variant} has "
            "short_encoding/simd_avx2)",
            f"short_encoding/simd_avx2 is only in {variant} (renamed? {baseline} has "
            "short_encoding/simd)")

    def test_filter_compares_a_subset_against_a_whole_baseline(self):
        def keep_short_serial(document):
            document["benchmarks"] = [row for row in document["benchmarks"]
                                      if row["run_name"] == "short_encoding/serial"]
        variant = self.baseline_variant(keep_short_serial)
        unfiltered = run_compare(golden_path("baseline.json"), variant)
        self.assertEqual(unfiltered.returncode, 2)
        self.assertIn("short_encoding/simd is only in", unfiltered.stderr)
        filtered = run_compare(golden_path("baseline.json"), variant, "--filter", "^short.*/serial")
        self.assertEqual(filtered.returncode, 0, filtered.stderr)
        self.assertEqual(list(verdicts(filtered.stdout)), ["short_encoding/serial"])

    def test_filter_keeps_one_sided_benchmarks_it_selects(self):
        def drop_simd(document):
            document["benchmarks"] = [row for row in document["benchmarks"]
                                      if row["run_name"] != "short_encoding/simd"]
        variant = self.baseline_variant(drop_simd)
        baseline = golden_path("baseline.json")
        self.assert_unusable([baseline, variant, "--filter", "short_encoding"],
                             f"short_encoding/simd is only in {baseline}")

    def test_allow_new_lists_benchmarks_without_baseline(self):
        def keep_short_serial(document):
            document["benchmarks"] = [row for row in document["benchmarks"]
                                      if row["run_name"] == "short_encoding/serial"]
        subset = self.baseline_variant(keep_short_serial)
        whole = golden_path("baseline.json")
        result = run_compare(subset, whole, "--allow-new")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.startswith(
            f"Not compared: 5 benchmarks only in {whole}, which the baseline does not have yet: "
            + ", ".join(GOLDEN_BENCHMARK_NAMES[1:]) + "\n"), result.stdout)
        self.assertEqual(list(verdicts(result.stdout)), ["short_encoding/serial"])
        # A benchmark only in the baseline is still an error.
        self.assert_unusable([whole, subset, "--allow-new"],
                             *[f"{name} is only in {whole}" for name in GOLDEN_BENCHMARK_NAMES[1:]])

    def test_too_few_repetitions(self):
        def keep_three(document):
            document["benchmarks"] = [row for row in document["benchmarks"]
                                      if row.get("repetition_index", 0) < 3]
        variant = self.baseline_variant(keep_three)
        rerun = ("run build/benches with --benchmark_repetitions=5 (or more) and without "
                 "--benchmark_report_aggregates_only")
        self.assert_unusable(
            [golden_path("baseline.json"), variant],
            *[f"{variant}: {name} has 3 repetitions, fewer than --min-repetitions 5; {rerun}"
              for name in GOLDEN_BENCHMARK_NAMES])
        lowered = run_compare(golden_path("baseline.json"), variant, "--min-repetitions", "3",
                              "--alpha", "0.2")
        self.assertEqual(lowered.returncode, 0, lowered.stderr)

    def test_no_benchmark_in_common(self):
        def empty(document):
            document["benchmarks"] = []
        variant = self.baseline_variant(empty)
        self.assert_unusable([variant, variant],
                             f"no benchmark is in both {variant} (0 benchmarks) and {variant} "
                             "(0): nothing to compare")


class PairedTest(unittest.TestCase):
    """--paired: runs made side by side in rounds on a machine whose speed swings between rounds."""

    ROUND_SPEEDS = [1.0, 1.5, 0.9, 2.0, 1.2, 1.1, 1.3, 0.95]

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def rounds(self, name, slowdown):
        """The golden baseline's first repetition of each benchmark, once per round, times the
        round's speed and `slowdown` (name -> factor)."""
        document = read_golden("baseline.json")
        rows = []
        for index, speed in enumerate(self.ROUND_SPEEDS):
            for row in document["benchmarks"]:
                if row["run_type"] == "iteration" and row["repetition_index"] == 0:
                    factor = speed * slowdown.get(row["run_name"], 1.0)
                    rows.append(dict(row, repetition_index=index, repetitions=len(self.ROUND_SPEEDS),
                                     real_time=row["real_time"] * factor, cpu_time=row["cpu_time"] * factor))
        document["benchmarks"] = rows
        return write_document(self.directory.name, name, document)

    def test_twelve_percent_under_a_swinging_machine(self):
        baseline = self.rounds("a.json", {})
        current = self.rounds("b.json", {"short_encoding/serial": 1.12})
        unpaired = run_compare(baseline, current)
        self.assertEqual(unpaired.returncode, 0, unpaired.stdout)
        paired = run_compare(baseline, current, "--paired")
        self.assertEqual(paired.returncode, 1, paired.stdout + paired.stderr)
        self.assertEqual(verdicts(paired.stdout)["short_encoding/serial"], "slower")
        self.assertIn("Paired runs: change is the median ratio of the pairs", paired.stdout)
        self.assertTrue(paired.stdout.endswith(
            "Regressions:\n  short_encoding/serial: +12.0% (limit 10%, p = 0.0078)\n"), paired.stdout)

    def test_unpaired_repetitions(self):
        baseline = self.rounds("a.json", {})
        with open(baseline, encoding="utf-8") as file:
            document = json.load(file)
        document["benchmarks"] = [row for row in document["benchmarks"]
                                  if not (row["run_name"] == "short_encoding/simd" and row["repetition_index"] == 3)]
        current = write_document(self.directory.name, "b.json", document)
        result = run_compare(baseline, current, "--paired")
        self.assertEqual(result.returncode, 2, result.stdout)
        self.assertEqual(result.stderr.splitlines(), [
            f"scripts/compare: error: short_encoding/simd: repetitions 3 of {baseline} and none of {current} "
            "have no partner; paired runs repeat every benchmark in the same rounds"])

    def test_five_pairs_can_never_be_significant(self):
        result = run_compare(golden_path("baseline.json"), golden_path("baseline.json"), "--paired",
                             "--min-repetitions", "5")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--min-repetitions 5: with so few repetitions no p-value can be below --alpha 0.05 "
                      "(the smallest is 0.0625)", result.stderr)

    def test_golden_runs_have_too_few_pairs(self):
        result = run_compare(golden_path("baseline.json"), golden_path("baseline.json"), "--paired")
        self.assertEqual(result.returncode, 2)
        self.assertIn("short_encoding/serial has 5 repetitions, fewer than --min-repetitions 6", result.stderr)


class DriftTest(unittest.TestCase):
    """--drift: runs made apart on one machine, whose speed moved every benchmark in between."""

    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def drifted(self, name, drift, slowdown=None):
        """The golden baseline with every time `drift` times longer, and `slowdown`'s benchmarks
        (name -> factor) slower still."""
        factors = {benchmark: drift * (slowdown or {}).get(benchmark, 1.0) for benchmark in GOLDEN_BENCHMARK_NAMES}
        return write_document(self.directory.name, name, slowed_down(read_golden("baseline.json"), factors))

    def test_a_drift_of_the_machine_cancels(self):
        current = self.drifted("b.json", 1.08)
        raw = run_compare(golden_path("baseline.json"), current, *QUIET_MACHINE)
        self.assertEqual(raw.returncode, 1, raw.stdout)
        self.assertEqual(len(raw.stdout.split("Regressions:\n", 1)[1].splitlines()), 6)
        net = run_compare(golden_path("baseline.json"), current, *QUIET_MACHINE, "--drift")
        self.assertEqual(net.returncode, 0, net.stdout + net.stderr)
        self.assertIn("drift of the machine: +8.0%, the median change of the 6 benchmarks; divided out of the "
                      "current times shown and tested", net.stdout)
        self.assertEqual(set(verdicts(net.stdout).values()), {"same"})

    def test_a_regression_stands_out_of_the_drift(self):
        current = self.drifted("b.json", 1.08, {"short_encoding/serial": 1.10})
        result = run_compare(golden_path("baseline.json"), current, *QUIET_MACHINE, "--drift")
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertTrue(result.stdout.endswith(
            "Regressions:\n  short_encoding/serial: +10.0% (limit 5%, p = 0.0079)\n"), result.stdout)

    def test_too_few_benchmarks_to_tell_a_drift(self):
        result = run_compare(golden_path("baseline.json"), golden_path("slower.json"), "--drift",
                             "--filter", "^short_encoding/")
        self.assertEqual(result.returncode, 2, result.stdout)
        self.assertEqual(result.stderr, "scripts/compare: error: --drift needs 5 or more benchmarks in common "
                                        "to tell a drift of the machine from a regression; these runs have 4\n")

    def test_not_with_paired_runs(self):
        result = run_compare(golden_path("baseline.json"), golden_path("baseline.json"), "--drift", "--paired")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--drift and --paired: the pairs of paired runs cancel the drift already", result.stderr)


class ArgumentTest(unittest.TestCase):
    def assert_usage_error(self, arguments, message):
        result = run_compare(golden_path("baseline.json"), golden_path("baseline.json"),
                             *arguments)
        self.assertEqual(result.returncode, 2)
        self.assertIn(message, result.stderr)

    def test_bad_minimum_effect(self):
        self.assert_usage_error(["--min-effect", "long_encoding"],
                                "'long_encoding' is not PATTERN=PCT")

    def test_unreadable_minimum_effects_file(self):
        self.assert_usage_error(["--min-effects-file", "/no/such/floors"],
                                "argument --min-effects-file: cannot read /no/such/floors: No such file or directory")

    def test_bad_filter(self):
        self.assert_usage_error(["--filter", "(short"], "'(short' is not a regular expression")

    def test_bad_alpha(self):
        self.assert_usage_error(["--alpha", "1.5"], "1.5 is not between 0 and 1")

    def test_repetitions_too_few_to_ever_be_significant(self):
        self.assert_usage_error(["--min-repetitions", "3"],
                                "--min-repetitions 3: with so few repetitions no p-value can be "
                                "below --alpha 0.05 (the smallest is 0.1)")

    def test_help_states_defaults_and_their_origin(self):
        result = run_compare("--help")
        self.assertEqual(result.returncode, 0)
        for text in ("(default: 0.05)", "(default: 5, with --paired 6)", "*=10", "adversarial_encoding/*=20",
                     "*/real_time=30", "Measured: 6 runs of one build",
                     "last matching rule wins", "exit status:", "simd_parallel/simd",
                     "cpu_model, num_cpus, mhz_per_cpu, caches, compiler, build_type, simd_isa"):
            self.assertIn(text, " ".join(result.stdout.split()))


if __name__ == "__main__":
    unittest.main()
