"""Reading Google Benchmark JSON: samples, clocks, units, order, and every unusable file."""

import tempfile
import unittest

import repository  # noqa: F401  (makes benchcompare importable)
from benchcompare.benchmark_run import load_benchmark_run
from benchcompare.unusable_input import UnusableInput
from golden_files import (GOLDEN_BENCHMARK_NAMES, golden_path, iteration_rows, read_golden,
                          timed_value, write_document)


class GoodFileTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def test_benchmarks_in_registration_order(self):
        self.assertEqual(list(load_benchmark_run(golden_path("baseline.json")).benchmarks),
                         GOLDEN_BENCHMARK_NAMES)

    def test_registration_order_survives_shuffled_rows(self):
        document = read_golden("baseline.json")
        document["benchmarks"].reverse()
        run = load_benchmark_run(write_document(self.directory.name, "reversed.json", document))
        self.assertEqual(list(run.benchmarks), GOLDEN_BENCHMARK_NAMES)

    def test_cpu_time_or_real_time_by_name(self):
        document = read_golden("baseline.json")
        run = load_benchmark_run(golden_path("baseline.json"))
        for name in ("short_encoding/serial", "short_encoding/parallel/real_time"):
            rows = iteration_rows(document, name)
            expected = {row["repetition_index"]: timed_value(row) for row in rows}
            self.assertEqual(run.benchmarks[name].times_ns, expected)
        # The two clocks differ in this file, so the choice of field matters.
        serial = iteration_rows(document, "short_encoding/serial")[0]
        self.assertNotEqual(serial["cpu_time"], serial["real_time"])

    def test_aggregate_rows_are_noted_not_sampled(self):
        run = load_benchmark_run(golden_path("baseline.json"))
        self.assertTrue(run.benchmarks["short_encoding/serial"].has_aggregates)
        self.assertEqual(len(run.benchmarks["short_encoding/serial"].times_ns), 5)
        self.assertFalse(run.benchmarks["short_encoding/simd"].has_aggregates)

    def test_time_units_become_nanoseconds(self):
        document = read_golden("baseline.json")
        for row in document["benchmarks"]:
            row["time_unit"] = "ms"
            row["cpu_time"] /= 1e6
        run = load_benchmark_run(write_document(self.directory.name, "ms.json", document))
        original = load_benchmark_run(golden_path("baseline.json"))
        for index, time_ns in original.benchmarks["short_encoding/simd"].times_ns.items():
            self.assertAlmostEqual(run.benchmarks["short_encoding/simd"].times_ns[index], time_ns,
                                   places=6)

    def test_context_is_kept(self):
        run = load_benchmark_run(golden_path("baseline.json"))
        self.assertEqual(run.context["simd_isa"], "avx2")
        self.assertEqual(run.context["num_cpus"], 2)


class UnusableFileTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def assert_unusable(self, path, *messages):
        with self.assertRaises(UnusableInput) as raised:
            load_benchmark_run(path)
        self.assertEqual(raised.exception.messages, list(messages))

    def write_baseline_with(self, change):
        document = read_golden("baseline.json")
        change(document["benchmarks"])
        return write_document(self.directory.name, "changed.json", document)

    def test_missing_file(self):
        path = f"{self.directory.name}/absent.json"
        self.assert_unusable(path, f"cannot read {path}: No such file or directory")

    def test_folder(self):
        self.assert_unusable(self.directory.name,
                             f"cannot read {self.directory.name}: Is a directory")

    def test_not_utf8(self):
        path = f"{self.directory.name}/latin1.json"
        with open(path, "wb") as file:
            file.write(b'{"context": {}, "benchmarks": []}\n\xe9')
        self.assert_unusable(path, f"{path} is not UTF-8 text (byte 34)")

    def test_malformed_json_names_line_and_column(self):
        path = golden_path("truncated.json")
        self.assert_unusable(path, f"{path} is not valid JSON: Expecting property name enclosed "
                             "in double quotes at line 5 column 1")

    def test_not_google_benchmark_json(self):
        path = golden_path("not_google_benchmark.json")
        self.assert_unusable(path,
                             f'{path} is not Google Benchmark JSON: it has no "benchmarks" list')

    def test_json_array(self):
        path = write_document(self.directory.name, "array.json", [1, 2])
        self.assert_unusable(path,
                             f'{path} is not Google Benchmark JSON: it has no "benchmarks" list')

    def test_no_context(self):
        path = write_document(self.directory.name, "no_context.json", {"benchmarks": []})
        self.assert_unusable(path,
                             f'{path} is not Google Benchmark JSON: it has no "context" object')

    def test_benchmark_that_reported_an_error(self):
        path = golden_path("error_occurred.json")
        self.assert_unusable(path, f"{path}: benchmark long_encoding/serial reported an error: "
                             '"cannot open data/corpus/en_shakespeare.txt"')

    def test_row_without_run_name(self):
        path = self.write_baseline_with(lambda rows: rows[1].pop("run_name"))
        self.assert_unusable(path, f'{path}: row 1 of "benchmarks" has no "run_name" string')

    def test_unknown_time_unit(self):
        def set_unit(rows):
            rows[2]["time_unit"] = "fortnights"
        path = self.write_baseline_with(set_unit)
        self.assert_unusable(path, f'{path}: row 2 of "benchmarks" (short_encoding/serial) has '
                             "no known \"time_unit\" (ns, us, ms, s): 'fortnights'")

    def test_time_unit_that_is_not_a_string(self):
        # Found by fuzz_json_inputs: an unhashable unit once escaped as a TypeError.
        def set_unit(rows):
            rows[2]["time_unit"] = []
        path = self.write_baseline_with(set_unit)
        self.assert_unusable(path, f'{path}: row 2 of "benchmarks" (short_encoding/serial) has '
                             "no known \"time_unit\" (ns, us, ms, s): []")

    def test_repetition_index_that_is_not_a_whole_number(self):
        # Found by fuzz_json_inputs: a list as repetition_index once escaped as a TypeError.
        for index in ([], 1.5, -1, True, "2"):
            with self.subTest(index=index):
                def set_index(rows):
                    rows[0]["repetition_index"] = index
                path = self.write_baseline_with(set_index)
                self.assert_unusable(path, f'{path}: row 0 of "benchmarks" (short_encoding/serial) has '
                                     f'a "repetition_index" that is not a whole number: {index!r}')

    def test_time_that_is_not_positive(self):
        def zero_time(rows):
            rows[0]["cpu_time"] = 0
        path = self.write_baseline_with(zero_time)
        self.assert_unusable(path, f'{path}: row 0 of "benchmarks" (short_encoding/serial) has '
                             'a "cpu_time" that is not a positive number: 0')

    def test_repetition_twice(self):
        path = self.write_baseline_with(lambda rows: rows.append(rows[0]))
        self.assert_unusable(path, f"{path}: benchmark short_encoding/serial has repetition 0 "
                             "twice")

    def test_every_problem_is_named(self):
        def break_two(rows):
            rows[0]["time_unit"] = "?"
            rows[10]["real_time"] = "slow"
        path = self.write_baseline_with(break_two)
        self.assert_unusable(
            path,
            f'{path}: row 0 of "benchmarks" (short_encoding/serial) has no known "time_unit" '
            "(ns, us, ms, s): '?'",
            f'{path}: row 10 of "benchmarks" (short_encoding/parallel/real_time) has no number '
            '"real_time"')


if __name__ == "__main__":
    unittest.main()
