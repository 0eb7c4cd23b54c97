"""scripts/peers --ours-sdpa: our SDPA benchmarks run by build/benches take turns with torch's in
the rounds of each shape, and the table reports the median of the rounds' ratios (ours over
torch, ours in bfloat16 over ours in float) and of decoding's bandwidth fractions."""

import argparse
import json
import unittest
from unittest import mock

import repository  # noqa: F401  (makes peerbench importable)
from peerbench import cli
from peerbench.ours_sdpa import counterparts, dtype_of, float_counterpart, our_name, parse_benches_run, ratio_rows
from peerbench.sdpa import ELEMENT_BYTES

SHAPE = "sdpa/batch:4/heads:8/seq_q:512/seq_k:512/dim:64/causal:0"
DECODE_SHAPE = "sdpa_decode/batch:1/heads:32/kv_heads:8/seq_q:4/seq_k:4096/dim:128"


def benches_json(*rows):
    return json.dumps({"context": {}, "benchmarks": list(rows)})


class NamesTest(unittest.TestCase):
    def test_our_names_are_those_of_build_benches(self):
        self.assertEqual(our_name(SHAPE, "flash_bf16"),
                         "sdpa/flash_bf16/batch:4/heads:8/seq_q:512/seq_k:512/dim:64/causal:0/real_time")
        self.assertEqual(our_name(DECODE_SHAPE, "decode"),
                         "sdpa_decode/decode/batch:1/heads:32/kv_heads:8/seq_q:4/seq_k:4096/dim:128/real_time")

    def test_each_of_ours_is_compared_with_the_torch_rows_of_its_element_type(self):
        self.assertEqual(dtype_of("flash_bf16"), "bfloat16")
        self.assertEqual(dtype_of("decode"), "float32")
        variants = ["torch", "torch_bf16", "torch_cuda"]
        self.assertEqual(counterparts("flash_bf16", variants), ["torch_bf16"])
        self.assertEqual(counterparts("flash", variants), ["torch", "torch_cuda"])

    def test_a_bfloat16_implementation_has_its_float_counterpart(self):
        self.assertEqual(float_counterpart("decode_bf16"), "decode")
        self.assertEqual(float_counterpart("flash_bf16"), "flash")
        self.assertIsNone(float_counterpart("flash"))


class ParseTest(unittest.TestCase):
    NAME = our_name(SHAPE, "flash")

    def test_totals_in_nanoseconds_whatever_the_unit(self):
        out = benches_json({"name": "other", "run_name": "other", "run_type": "iteration", "iterations": 9,
                            "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ns"},
                           {"name": self.NAME, "run_name": self.NAME, "run_type": "iteration", "iterations": 40,
                            "real_time": 2.5, "cpu_time": 4.0, "time_unit": "ms"})
        self.assertEqual(parse_benches_run(out, self.NAME), (40, 40 * 2.5e6, 40 * 4.0e6, {}))

    def test_the_bandwidth_fraction_is_kept_and_rates_are_not(self):
        out = benches_json({"name": self.NAME, "run_name": self.NAME, "run_type": "iteration", "iterations": 4,
                            "real_time": 1.0, "cpu_time": 1.0, "time_unit": "ns", "GBps": 20.0,
                            "bandwidth_fraction": 0.72})
        self.assertEqual(parse_benches_run(out, self.NAME)[3], {"bandwidth_fraction": 0.72})

    def test_a_failed_or_missing_run_is_an_error(self):
        failed = benches_json({"name": self.NAME, "run_name": self.NAME, "run_type": "iteration", "iterations": 0,
                               "real_time": 0, "cpu_time": 0, "error_occurred": True,
                               "error_message": "no OpenCL device"})
        with self.assertRaisesRegex(ValueError, "no OpenCL device"):
            parse_benches_run(failed, self.NAME)
        with self.assertRaisesRegex(ValueError, "ran no"):
            parse_benches_run(benches_json(), self.NAME)


def records(name, times, fractions=None):
    rows = [{"name": name, "real_time": t} for t in times]
    for row, fraction in zip(rows, fractions or []):
        row["bandwidth_fraction"] = fraction
    return rows


class RatiosTest(unittest.TestCase):
    def test_the_median_of_the_rounds_ratios_not_the_ratio_of_medians(self):
        ours, theirs = "sdpa/flash/x", "torch/sdpa/x"
        # Round by round ours is 2x, 2x and 0.5x as fast; the medians' ratio would be 20/20 = 1.
        rows = ratio_rows({ours: records(ours, [10, 20, 40]), theirs: records(theirs, [20, 40, 20])},
                          [(ours, theirs, "torch"), ("sdpa/flash/missing", theirs, "torch")])
        self.assertEqual(rows, [(ours, "/ torch", 2.0, 0.5, 2.0)])

    def test_bfloat16_over_float_and_the_bandwidth_fractions_of_the_rounds(self):
        bf16, f32 = our_name(DECODE_SHAPE, "decode_bf16"), our_name(DECODE_SHAPE, "decode")
        torch_bf16 = f"torch_bf16/{DECODE_SHAPE}/real_time"
        rows = ratio_rows({bf16: records(bf16, [10, 10, 10], [0.5, 0.7, 0.6]), f32: records(f32, [18, 16, 20]),
                           torch_bf16: records(torch_bf16, [50, 40, 60])},
                          [(bf16, torch_bf16, "torch_bf16"), (bf16, f32, "decode")])
        self.assertEqual(rows, [(bf16, "/ torch_bf16", 5.0, 4.0, 6.0), (bf16, "/ decode", 1.8, 1.6, 2.0),
                                (bf16, "of bandwidth", 0.6, 0.5, 0.7)])


class FakeRunner:
    """build/benches as the runner sees it: a list of names, and runs that log their order."""

    def __init__(self, benches, min_time, log=None):
        self.benches = benches
        self.log = log

    def names(self):
        return {our_name(SHAPE, "flash"), our_name(SHAPE, "flash_bf16")}

    def run(self, name):
        self.log.append(name.split("/")[1])
        return 3, 30.0, 33.0, {"bandwidth_fraction": 0.5}


class TurnsTest(unittest.TestCase):
    def test_ours_join_the_shape_and_take_turns_with_torch(self):
        log = []
        args = argparse.Namespace(repetitions=3, min_time=1e-9, ours_sdpa="flash_bf16,decode,sdpa_decode/flash")
        torch_name = f"torch_bf16/{SHAPE}/real_time"

        def torch_sample():
            log.append("torch_bf16")
            return 5, 50.0, 55.0

        shapes = {SHAPE: (lambda dtype: ({"GFLOPS": float(ELEMENT_BYTES[dtype])}, None),
                          [(torch_name, {"GFLOPS": 2.0}, lambda: torch_sample)])}
        notes = []
        with mock.patch.object(cli, "BenchesRunner", lambda benches, min_time: FakeRunner(benches, min_time, log)):
            pairs = cli.add_our_sdpa_members(shapes, args, notes)
        ours = our_name(SHAPE, "flash_bf16")
        # sdpa_decode/flash is for the decode shapes only: not this one, and no note of it.
        self.assertEqual(pairs, [(ours, torch_name, "torch_bf16")])
        self.assertEqual([name for name, *_ in shapes[SHAPE][1]], [torch_name, ours])
        self.assertEqual(len(notes), 1)
        self.assertIn("decode (--ours-sdpa) has no benchmark", notes[0])
        members = [(name, index, amounts, make) for index, (name, amounts, make) in enumerate(shapes[SHAPE][1])]
        outcome = cli.measure_sdpa_shape(members, args)
        self.assertEqual(log, ["torch_bf16", "flash_bf16", "flash_bf16", "torch_bf16", "torch_bf16", "flash_bf16"])
        # bfloat16's amounts for ours (2-byte elements), its own iteration count and times per call.
        self.assertEqual(outcome[ours][0]["GFLOPS"], 2.0 * 3 / 30e-9)
        self.assertEqual(outcome[ours][0]["real_time"], 10.0)
        # The counters a run of benches keeps go into its record as they are; torch's have none.
        self.assertEqual(outcome[ours][0]["bandwidth_fraction"], 0.5)
        self.assertNotIn("bandwidth_fraction", outcome[torch_name][0])
        self.assertEqual(outcome[torch_name][2]["iterations"], 5)
        self.assertEqual(outcome[torch_name][0]["family_index"], 0)
        self.assertEqual(outcome[ours][0]["family_index"], 1)

    def test_ours_in_bfloat16_is_paired_with_ours_in_float_where_both_run(self):
        args = argparse.Namespace(repetitions=1, min_time=1e-9, ours_sdpa="flash_bf16,flash")
        torch_name = f"torch_bf16/{SHAPE}/real_time"
        shapes = {SHAPE: (lambda dtype: ({"GFLOPS": 1.0}, None), [(torch_name, {"GFLOPS": 1.0}, lambda: None)])}
        with mock.patch.object(cli, "BenchesRunner", lambda benches, min_time: FakeRunner(benches, min_time, [])):
            pairs = cli.add_our_sdpa_members(shapes, args, [])
        self.assertEqual(pairs, [(our_name(SHAPE, "flash_bf16"), torch_name, "torch_bf16"),
                                 (our_name(SHAPE, "flash_bf16"), our_name(SHAPE, "flash"), "flash")])


if __name__ == "__main__":
    unittest.main()
