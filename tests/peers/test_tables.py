"""The regime table: a row per peer and per encoder of ours, a column per regime; and ours over
the fastest peer of each benchmark, round by round."""

import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path

import repository  # noqa: F401  (makes peerbench importable)
from peerbench.results import iteration_record


def row(name, nanoseconds, nbytes):
    return iteration_record(name, 0, 1, 0, 1, nanoseconds, nanoseconds, {"bytes_per_second": nbytes})


class RegimeTableTest(unittest.TestCase):
    def test_peers_and_ours_side_by_side(self):
        from peerbench.tables import print_regime_table
        peers = [row("fastokens/long_encoding", 2_000_000, 1_000_000),        # 500 MB/s
                 row("fastokens/long_encoding/cold", 4_000_000, 1_000_000),   # 250 MB/s
                 row("fastokens/short_encoding", 700, 60)]                    # 0.70 us a call
        ours = [row("long_encoding/simd", 5_000_000, 1_000_000),              # 200 MB/s
                row("long_encoding/cold/simd", 8_000_000, 1_000_000),         # 125 MB/s
                row("stream_encoding/simd/real_time", 10_000_000, 1_000_000),  # 100 MB/s
                row("short_encoding/simd", 170, 60)]
        with tempfile.TemporaryDirectory() as folder:
            ours_file = Path(folder) / "ours.json"
            ours_file.write_text(json.dumps({"context": {}, "benchmarks": ours}), encoding="utf-8")
            output = io.StringIO()
            with contextlib.redirect_stdout(output):
                print_regime_table(peers, ours_file, ["fastokens", "gigatoken"])
        lines = output.getvalue().splitlines()
        self.assertIn("encoder    long warm  long cold  stream  short  batch warm  batch cold", lines)
        self.assertIn("fastokens        500        250       -   0.70           -           -", lines)
        # Ours in their own cold and stream benchmarks, /real_time or not.
        self.assertIn("ours simd        200        125     100   0.17           -           -", lines)
        # A peer without any measurement has no row; o200k, measured by nobody, no table.
        self.assertFalse(any(line.startswith("gigatoken") for line in lines))
        self.assertFalse(any(line.startswith("o200k_base") for line in lines))



def rounds(name, times):
    return [iteration_record(name, 0, len(times), i, 1, t, t, {"bytes_per_second": 1}) for i, t in enumerate(times)]


class RoundRatiosTest(unittest.TestCase):
    def test_ours_over_the_fastest_peer_round_by_round(self):
        from peerbench.tables import round_ratio_rows
        rows = (rounds("gigatoken/long_encoding", [10, 30, 10]) + rounds("fastokens/long_encoding", [20, 20, 20])
                + rounds("ours_python/long_encoding", [5, 40, 10])
                + rounds("ours_python/stream_encoding", [1, 1, 1]))
        groups = [["gigatoken/long_encoding", "fastokens/long_encoding", "ours_python/long_encoding"],
                  ["ours_python/stream_encoding"]]
        # gigatoken's median (10) is the lowest: ours is 2x, 0.75x and 1x as fast as it, round by
        # round; the ratio of the medians (10 / 10) would hide both the gain and the loss. A
        # benchmark that only ours ran has no row.
        self.assertEqual(round_ratio_rows(rows, groups, ("ours_python",)),
                         [("long_encoding", "ours_python", "gigatoken", 1.0, 0.75, 2.0)])


if __name__ == "__main__":
    unittest.main()
