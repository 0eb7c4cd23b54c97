"""scripts/bench's command line: the errors it gives before it installs, builds or runs anything."""

import subprocess
import unittest

from repository import REPO_ROOT

BENCH_SCRIPT = REPO_ROOT / "scripts" / "bench"


def run_bench(*arguments):
    return subprocess.run(["bash", str(BENCH_SCRIPT), *arguments], capture_output=True, text=True,
                          check=False, timeout=60)


class ArgumentTest(unittest.TestCase):
    def assert_usage_error(self, arguments, message):
        result = run_bench(*arguments)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertEqual(result.stderr, f"scripts/bench: {message}\n")

    def test_against_needs_a_revision(self):
        self.assert_usage_error(["--against"], "--against needs a git revision")

    def test_against_an_unknown_revision(self):
        self.assert_usage_error(["--against", "no-such-branch-or-tag"],
                                f"--against no-such-branch-or-tag: no such commit in {REPO_ROOT}")

    def test_against_with_too_few_rounds(self):
        self.assert_usage_error(["--against", "HEAD", "--repetitions", "5"],
                                "--against needs at least 6 rounds (--repetitions)")

    def test_against_does_not_save_or_skip_the_comparison(self):
        message = "--against compares two builds; it takes neither --save-baseline nor --no-compare"
        self.assert_usage_error(["--against", "HEAD", "--save-baseline"], message)
        self.assert_usage_error(["--against", "HEAD", "--no-compare"], message)

    def test_pairing_is_abba_or_duet_and_needs_against(self):
        self.assert_usage_error(["--against", "HEAD", "--pairing", "trio"], "--pairing is abba or duet")
        self.assert_usage_error(["--pairing", "duet"], "--pairing goes with --against")

    def test_counts_take_no_timing_options(self):
        message = "--counts takes only --save-baseline, --no-compare and --benchmark_filter"
        self.assert_usage_error(["--counts", "--quick"], message)
        self.assert_usage_error(["--counts", "--against", "HEAD"], message)
        self.assert_usage_error(["--counts", "--benchmark_min_time=1"], message)
        self.assert_usage_error(["--counts", "--verbose"], message)

    def test_quick_and_full_are_two_selections(self):
        self.assert_usage_error(["--quick", "--full"], "--quick and --full are two selections; give one")

    def test_repetitions_and_output_files_are_the_scripts_own(self):
        for flag in ("--benchmark_repetitions", "--benchmark_out", "--benchmark_out_format", "--benchmark_format"):
            self.assert_usage_error([f"{flag}=x"], f"{flag} is scripts/bench's own; give --repetitions N, "
                                                   "or run build/benches itself")

    def test_repetitions_must_be_a_count(self):
        self.assert_usage_error(["--repetitions", "x"], "--repetitions needs a positive count")

    def test_help_names_every_option(self):
        result = run_bench("--help")
        self.assertEqual(result.returncode, 0)
        for option in ("--quick", "--full", "--verbose", "bench-log.txt", "bench-results.png", "--save-baseline", "--no-compare", "--ratios-only", "--repetitions N",
                       "--against REV", "paired_minimum_effects", "--pairing P", "--counts"):
            self.assertIn(option, result.stdout)


if __name__ == "__main__":
    unittest.main()
