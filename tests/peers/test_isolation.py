"""Inputs that crash peers are measured in a child process: a crash, a failure or a skip there
costs that benchmark alone, reported with the reason; its records come back as the parent's. The
batch benchmarks' family goes to a child whole, each member coming back with its records or skip."""

import argparse
import json
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

import repository  # noqa: F401  (makes peerbench importable)
from peerbench import cli
from peerbench.results import iteration_record


class ChildProcessTest(unittest.TestCase):
    def run_child(self, body, members=(("peer/family", 7),)):
        """measure_in_child of one benchmark, or measure_family_in_child of more MEMBERS, with a
        script of BODY in place of scripts/peers; its arguments are those they pass, parsed into
        `args`, the filter matching exactly the members' names."""
        with tempfile.TemporaryDirectory() as folder:
            script = Path(folder) / "child.py"
            script.write_text(textwrap.dedent("""\
                import argparse, json, os, signal, sys
                parser = argparse.ArgumentParser()
                for flag in ("--filter", "--out", "--repetitions", "--min-time", "--threads", "--tokenize"):
                    parser.add_argument(flag)
                parser.add_argument("--in-child", action="store_true")
                args = parser.parse_args()
                assert args.in_child, sys.argv
                import re
                filter_matches = [name for name in ("peer/family", "other/family", "peer/family/more")
                                  if re.search(args.filter, name)]
                """) + f"assert filter_matches == {[name for name, _ in members]!r}, sys.argv\n" + textwrap.dedent(body))
            args = argparse.Namespace(repetitions=2, min_time=0.1, threads=2, tokenize=Path("tokenize"))
            saved = sys.argv[0]
            sys.argv[0] = str(script)
            try:
                if len(members) == 1:
                    return cli.measure_in_child(*members[0], args)
                return cli.measure_family_in_child(list(members), args)
            finally:
                sys.argv[0] = saved

    def test_a_crash_skips_the_benchmark_with_its_signal(self):
        with self.assertRaisesRegex(cli.Skipped, r"its process crashed \(SIGABRT\)"):
            self.run_child("os.kill(os.getpid(), signal.SIGABRT)\n")

    def test_a_failure_without_results_says_its_status(self):
        with self.assertRaisesRegex(cli.Skipped, r"its process failed \(exit status 3\)"):
            self.run_child("sys.exit(3)\n")

    def test_a_skip_in_the_child_is_the_parents_skip(self):
        with self.assertRaises(cli.Skipped) as raised:
            self.run_child("""\
                why = "ids differ from ours (first difference at token 3)"
                result = {"context": {"notes": f"peer/family skipped: {why}", "skipped": {"peer/family": why}},
                          "benchmarks": []}
                open(args.out, "w").write(json.dumps(result))
                """)
        self.assertEqual(str(raised.exception), "ids differ from ours (first difference at token 3)")
        self.assertTrue(raised.exception.ids_differ)

    def test_records_come_back_with_the_parents_family_index(self):
        record = iteration_record("peer/family", 0, 2, 0, 10, 1000.0, 1000.0, {"bytes_per_second": 100})
        records = self.run_child(f"""\
            open(args.out, "w").write(json.dumps({{"context": {{}}, "benchmarks": [{json.dumps(record)}]}}))
            """)
        self.assertEqual(len(records), 1)
        self.assertEqual(records[0]["family_index"], 7)
        self.assertEqual(records[0]["name"], "peer/family")

    def test_a_family_comes_back_by_name_each_with_its_records_or_its_skip(self):
        record = iteration_record("peer/family", 0, 2, 0, 10, 1000.0, 1000.0, {"bytes_per_second": 100})
        outcome = self.run_child(f"""\
            context = {{"notes": "other/family skipped: other has no batch call",
                        "skipped": {{"other/family": "other has no batch call"}}}}
            open(args.out, "w").write(json.dumps({{"context": context, "benchmarks": [{json.dumps(record)}]}}))
            """, members=(("peer/family", 3), ("other/family", 4)))
        self.assertEqual([r["family_index"] for r in outcome["peer/family"]], [3])
        self.assertIsInstance(outcome["other/family"], cli.Skipped)
        self.assertEqual(str(outcome["other/family"]), "other has no batch call")

    def test_a_crash_skips_every_member_of_the_family(self):
        outcome = self.run_child("os.kill(os.getpid(), signal.SIGSEGV)\n", members=(("peer/family", 3), ("other/family", 4)))
        self.assertEqual({name: str(skip) for name, skip in outcome.items()},
                         {"peer/family": "its process crashed (SIGSEGV)", "other/family": "its process crashed (SIGSEGV)"})


if __name__ == "__main__":
    unittest.main()
