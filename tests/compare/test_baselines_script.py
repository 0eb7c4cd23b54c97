"""scripts/baselines run as a child process: finding the baseline of a machine, recording one."""

import errno
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from golden_files import golden_path, read_golden, write_document
from repository import SCRIPTS_DIR

from benchcompare.baseline_store import save_baseline
from benchcompare.unusable_input import UnusableInput

BASELINES_SCRIPT = SCRIPTS_DIR / "baselines"


def run_baselines(*arguments):
    return subprocess.run([sys.executable, str(BASELINES_SCRIPT), *arguments],
                          capture_output=True, text=True, check=False)


class BaselinesTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.store = Path(self.directory.name) / "baselines"
        self.store.mkdir()
        self.addCleanup(self.directory.cleanup)

    def run_file(self, name, **context):
        """The golden baseline with CONTEXT fields changed, written outside the store."""
        document = read_golden("baseline.json")
        document["context"].update(context)
        return write_document(self.directory.name, name, document)

    def save(self, path):
        result = run_baselines("save", path, "--dir", str(self.store))
        self.assertEqual(result.returncode, 0, result.stderr)
        return result

    def find(self, path):
        return run_baselines("find", path, "--dir", str(self.store))

    def test_save_names_the_file_by_fingerprint(self):
        result = self.save(golden_path("baseline.json"))
        saved = Path(result.stdout.strip())
        self.assertEqual(saved.parent, self.store)
        self.assertRegex(saved.name, r"^[a-z0-9._]+-2cpus-avx2-[a-z0-9._]+-release-[0-9a-f]{8}\.json$")
        self.assertEqual(saved.read_bytes(), Path(golden_path("baseline.json")).read_bytes())

    def test_save_replaces_the_baseline_of_the_same_fingerprint_only(self):
        first = Path(self.save(golden_path("baseline.json")).stdout.strip())
        other = Path(self.save(self.run_file("other.json", num_cpus=16)).stdout.strip())
        newer = self.run_file("newer.json", git_commit="fedcba9", date="2030-01-01T00:00:00+00:00")
        result = self.save(newer)
        self.assertEqual(Path(result.stdout.strip()), first)
        self.assertEqual(result.stderr, f"scripts/baselines: replaced {first.name}\n")
        self.assertEqual(sorted(self.store.iterdir()), sorted([first, other]))
        self.assertIn("fedcba9", first.read_text())

    def test_save_keeps_file_names_short(self):
        # Found by fuzz_json_inputs: a long context field once made a name the file system refused.
        result = self.save(self.run_file("long.json", build_type="x" * 1000, cpu_model="y" * 1000))
        self.assertLessEqual(len(Path(result.stdout.strip()).name), 255)

    def test_a_baseline_that_cannot_be_written_leaves_the_old_one(self):
        first = Path(self.save(golden_path("baseline.json")).stdout.strip())
        old = first.read_bytes()
        newer = self.run_file("newer.json", git_commit="fedcba9")
        full_disk = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        with mock.patch.object(Path, "write_bytes", side_effect=full_disk):
            with self.assertRaises(UnusableInput) as raised:
                save_baseline(newer, self.store)
        self.assertEqual(raised.exception.messages, [f"cannot write {first}: No space left on device"])
        self.assertEqual(first.read_bytes(), old)
        self.assertEqual(sorted(self.store.iterdir()), [first])

    def test_find_prefers_the_same_machine(self):
        same = Path(self.save(golden_path("baseline.json")).stdout.strip())
        self.save(self.run_file("other.json", num_cpus=16, date="2030-01-01T00:00:00+00:00"))
        result = self.find(self.run_file("current.json", git_commit="0123abc"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(Path(result.stdout.strip()), same)
        self.assertIn("recorded on this machine's fingerprint", result.stderr)

    def test_find_falls_back_to_the_newest_other_machine(self):
        self.save(self.run_file("old.json", num_cpus=8, date="2026-01-01T00:00:00+00:00"))
        newest = Path(self.save(self.run_file("new.json", num_cpus=16,
                                              date="2027-01-01T00:00:00+00:00")).stdout.strip())
        result = self.find(golden_path("baseline.json"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(Path(result.stdout.strip()), newest)
        self.assertIn("another machine: only speedup ratios will gate", result.stderr)

    def test_find_commit_names_the_commit_of_the_baseline_found(self):
        self.save(self.run_file("recorded.json", git_commit="7dcd71a"))
        result = run_baselines("find", self.run_file("current.json", git_commit="0123abc"), "--commit",
                               "--dir", str(self.store))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "7dcd71a\n")

    def test_find_commit_of_a_baseline_without_one(self):
        saved = Path(self.save(self.run_file("recorded.json", git_commit="unknown")).stdout.strip())
        result = run_baselines("find", golden_path("baseline.json"), "--commit", "--dir", str(self.store))
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"scripts/baselines: error: {saved} records no git_commit", result.stderr)

    def test_find_commit_of_a_baseline_measured_on_uncommitted_changes(self):
        saved = Path(self.save(self.run_file("recorded.json", git_commit="7dcd71a-dirty")).stdout.strip())
        result = run_baselines("find", golden_path("baseline.json"), "--commit", "--dir", str(self.store))
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stdout, "")
        self.assertIn(f"scripts/baselines: error: {saved} was measured on uncommitted changes to 7dcd71a "
                      "(git_commit 7dcd71a-dirty): no commit holds its code", result.stderr)

    def write_floors(self, name, text="*=7\n"):
        path = self.store / name
        path.write_text(text, encoding="utf-8")
        return path

    def floors(self, path):
        return run_baselines("floors", path, "--dir", str(self.store))

    def test_floors_measured_on_this_machine(self):
        saved = Path(self.save(golden_path("baseline.json")).stdout.strip())
        own = self.write_floors(saved.with_suffix(".minimum_effects").name)
        self.write_floors("minimum_effects", "*=25\n")
        result = self.floors(self.run_file("current.json", git_commit="0123abc"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(Path(result.stdout.strip()), own)
        self.assertEqual(result.stderr, f"scripts/baselines: minimum effects {own.name}: "
                                        "measured on this machine's fingerprint\n")

    def test_floors_of_another_machine_are_not_this_ones(self):
        saved = Path(self.save(self.run_file("other.json", num_cpus=16)).stdout.strip())
        self.write_floors(saved.with_suffix(".minimum_effects").name)
        default = self.write_floors("minimum_effects", "*=25\n")
        result = self.floors(golden_path("baseline.json"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(Path(result.stdout.strip()), default)
        self.assertIn("the defaults: no floors were measured on this machine's fingerprint", result.stderr)

    def test_floors_default_where_this_machine_has_a_baseline_only(self):
        self.save(golden_path("baseline.json"))
        default = self.write_floors("minimum_effects", "*=25\n")
        result = self.floors(golden_path("baseline.json"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(Path(result.stdout.strip()), default)

    def test_floors_without_defaults(self):
        self.save(golden_path("baseline.json"))
        result = self.floors(golden_path("baseline.json"))
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stdout, "")
        self.assertIn(f"{self.store} holds no minimum_effects file of default noise floors", result.stderr)

    def test_save_keeps_the_floors_of_the_fingerprint(self):
        saved = Path(self.save(golden_path("baseline.json")).stdout.strip())
        own = self.write_floors(saved.with_suffix(".minimum_effects").name)
        self.save(self.run_file("newer.json", git_commit="fedcba9"))
        self.assertEqual(own.read_text(encoding="utf-8"), "*=7\n")
        self.assertEqual(sorted(self.store.iterdir()), sorted([saved, own]))

    def test_find_in_an_empty_store(self):
        result = self.find(golden_path("baseline.json"))
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stdout, "")
        self.assertIn(f"{self.store} holds no baseline (*.json); record one with "
                      "scripts/bench --save-baseline", result.stderr)

    def test_missing_store(self):
        result = run_baselines("find", golden_path("baseline.json"), "--dir",
                               str(self.store / "absent"))
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"{self.store / 'absent'} is not a directory of baselines", result.stderr)

    def test_unusable_file_in_the_store(self):
        (self.store / "broken.json").write_text("{", encoding="utf-8")
        result = self.find(golden_path("baseline.json"))
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"{self.store / 'broken.json'} is not valid JSON", result.stderr)

    def test_aggregates_only_is_not_saved(self):
        result = run_baselines("save", golden_path("aggregates_only.json"), "--dir",
                               str(self.store))
        self.assertEqual(result.returncode, 2)
        self.assertIn("has no row per repetition", result.stderr)
        self.assertEqual(list(self.store.iterdir()), [])

    def test_unknown_command(self):
        result = run_baselines("drop", golden_path("baseline.json"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("invalid choice: 'drop'", result.stderr)


if __name__ == "__main__":
    unittest.main()
