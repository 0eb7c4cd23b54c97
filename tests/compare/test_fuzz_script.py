"""scripts/fuzz's command line: the errors it gives before it builds or runs anything."""

import subprocess
import unittest

from repository import REPO_ROOT

FUZZ_SCRIPT = REPO_ROOT / "scripts" / "fuzz"


def run_fuzz(*arguments):
    return subprocess.run(["bash", str(FUZZ_SCRIPT), *arguments], capture_output=True, text=True, check=False,
                          timeout=60)


class ArgumentTest(unittest.TestCase):
    def assert_usage_error(self, arguments, message):
        result = run_fuzz(*arguments)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertEqual(result.stderr, f"error: {message}\n")

    def test_time_and_jobs_need_a_positive_whole_number_either_way_they_are_written(self):
        self.assert_usage_error(["--time"], "--time needs a positive whole number")
        self.assert_usage_error(["--time", "x"], "--time needs a positive whole number, not 'x'")
        self.assert_usage_error(["--time=x"], "--time needs a positive whole number, not 'x'")
        self.assert_usage_error(["--jobs=0"], "--jobs needs a positive whole number, not '0'")
        self.assert_usage_error(["--jobs", "-1"], "--jobs needs a positive whole number, not '-1'")

    def test_unknown_targets_and_options(self):
        self.assert_usage_error(["nope"], "unknown target 'nope' (targets: encode decode tiktoken_file spec_file "
                                          "npy_file tokenize_arguments sdpa_arguments)")
        self.assert_usage_error(["--fast"], "unknown option '--fast' (see --help)")

    def test_help_names_the_targets_and_options(self):
        result = run_fuzz("--help")
        self.assertEqual(result.returncode, 0)
        for text in ("--time SECONDS", "--jobs N", "spec_file", "build-fuzz/fuzz/findings/TARGET/"):
            self.assertIn(text, result.stdout)


if __name__ == "__main__":
    unittest.main()
