"""scripts/plot run as a child process on the golden files: the PNG it writes (signature, size,
colours), and its errors.

scripts/plot runs as its first line says (Debian's /usr/bin/python3, which has Debian's
python3-matplotlib), not with the interpreter running these tests, which need the standard library
only. Without matplotlib there these tests fail; they never skip."""

import struct
import subprocess
import tempfile
import unittest
import zlib
from pathlib import Path

from golden_files import golden_path, read_golden, write_document
from repository import SCRIPTS_DIR
from test_plot_panels import with_sdpa_rows

PLOT_SCRIPT = SCRIPTS_DIR / "plot"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
WIDTH = 1200
# bar_chart's colours of the verdicts, as RGBA pixels.
RED = bytes((0xd6, 0x27, 0x28, 0xff))
GREEN = bytes((0x2c, 0xa0, 0x2c, 0xff))
# The legends show a patch of each verdict's colour; a bar of it has many times more pixels.
LEGEND_PIXELS = 1000


def run_plot(*arguments):
    return subprocess.run([str(PLOT_SCRIPT), *arguments], capture_output=True, text=True,
                          check=False)


def png_size(path):
    """(width, height) from the IHDR chunk, which follows the signature."""
    data = Path(path).read_bytes()[:24]
    length, kind = struct.unpack(">I4s", data[8:16])
    if data[:8] != PNG_SIGNATURE or kind != b"IHDR" or length != 13:
        raise AssertionError(f"{path} does not start as a PNG: {data!r}")
    return struct.unpack(">II", data[16:24])


def png_pixels(path):
    """The RGBA pixels of an 8-bit RGBA PNG without interlacing (as matplotlib's Agg writes it),
    row after row, as bytes."""
    data = Path(path).read_bytes()
    position, compressed, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        position += length + 12  # length, type, body, CRC
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            compressed += body
    width, height, bit_depth, colour_type, _, _, interlace = header
    if (bit_depth, colour_type, interlace) != (8, 6, 0):
        raise AssertionError(f"{path}: not 8-bit RGBA without interlacing: {header}")
    return _unfiltered(zlib.decompress(compressed), width * 4, height)


def _unfiltered(raw, stride, height, bpp=4):
    """Undoes the PNG filter of each row (None, Sub, Up, Average, Paeth)."""
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 2:
            line = bytearray((x + b) & 255 for x, b in zip(line, previous))
        elif kind in (1, 3, 4):
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = previous[i]
                if kind == 1:
                    predicted = a
                elif kind == 3:
                    predicted = (a + b) // 2
                else:
                    c = previous[i - bpp] if i >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    predicted = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + predicted) & 255
        rows.append(bytes(line))
        previous = line
    return b"".join(rows)


class PlotTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def output(self, name="plot.png"):
        return str(Path(self.directory.name) / name)

    def plot(self, *arguments, bars):
        """Runs scripts/plot ARGUMENTS -o a new file; checks its report; returns the file and
        its size."""
        output = self.output(f"plot{len(list(Path(self.directory.name).iterdir()))}.png")
        result = run_plot(*arguments, "-o", output)
        self.assertEqual((result.returncode, result.stderr), (0, ""), result.stdout)
        width, height = png_size(output)
        self.assertEqual(result.stdout, f"{output}: {width}x{height} PNG, {bars} bars\n")
        self.assertEqual(width, WIDTH)
        return output, height

    def test_the_interpreter_of_the_script_has_matplotlib(self):
        interpreter = PLOT_SCRIPT.read_text(encoding="utf-8").splitlines()[0].removeprefix("#!")
        result = subprocess.run([interpreter, "-c", "import matplotlib.backends.backend_agg"],
                                capture_output=True, text=True, check=False)
        self.assertEqual(result.returncode, 0,
                         f"{interpreter} (the first line of {PLOT_SCRIPT}) cannot import "
                         "matplotlib: install Debian's python3-matplotlib (scripts/lib/setup.sh "
                         f"lists it)\n{result.stderr}")

    def test_comparison_height_grows_with_the_bars(self):
        baseline, slower = golden_path("baseline.json"), golden_path("slower.json")
        # 1 benchmark; 4 benchmarks and 3 ratios; 6 benchmarks and 4 ratios.
        _, one = self.plot(baseline, slower, "--filter", "^short_encoding/serial$", bars=1)
        _, seven = self.plot(baseline, slower, "--filter", "^short", bars=7)
        _, ten = self.plot(baseline, slower, bars=10)
        self.assertLess(one, seven)
        self.assertLess(seven, ten)

    def test_single_run_height_grows_with_the_bars(self):
        sdpa = write_document(self.directory.name, "sdpa.json",
                              with_sdpa_rows(read_golden("baseline.json")))
        _, ratios = self.plot(golden_path("baseline.json"), bars=4)
        # The 4 ratios, and 2 benchmarks with 2 counters each.
        _, with_counters = self.plot(sdpa, bars=8)
        _, counters_only = self.plot(sdpa, "--filter", "^sdpa/", bars=4)
        self.assertLess(ratios, with_counters)
        self.assertLess(counters_only, with_counters)

    def test_verdicts_colour_the_bars(self):
        baseline = golden_path("baseline.json")
        # Other machine: every time faster but one (information), one ratio slower (gates).
        mixed, _ = self.plot(baseline, golden_path("other_machine.json"), bars=10)
        pixels = png_pixels(mixed)
        self.assertGreater(pixels.count(RED), LEGEND_PIXELS)
        self.assertGreater(pixels.count(GREEN), LEGEND_PIXELS)
        same, _ = self.plot(baseline, baseline, bars=10)
        pixels = png_pixels(same)
        self.assertLess(pixels.count(RED), LEGEND_PIXELS)
        self.assertLess(pixels.count(GREEN), LEGEND_PIXELS)

    def test_one_input_one_image(self):
        arguments = [golden_path("baseline.json"), golden_path("noise.json"), "--title", "noise"]
        first, _ = self.plot(*arguments, bars=10)
        second = self.output("second.png")
        Path(second).write_text("replaced", encoding="utf-8")
        result = run_plot(*arguments, "-o", second)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(Path(first).read_bytes(), Path(second).read_bytes())

    def test_help(self):
        result = run_plot("--help")
        self.assertEqual((result.returncode, result.stderr), (0, ""))
        for text in ("BASELINE.json CURRENT.json -o OUT.png", "RUN.json -o OUT.png",
                     "baseline median / current median", "simd/serial", "GFLOPS",
                     "peak_fraction", "*/real_time=30", "exit status", "--filter REGEX",
                     "--title T"):
            self.assertIn(text, result.stdout)


class UnusableInputTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)
        self.output = str(Path(self.directory.name) / "plot.png")

    def assert_unusable(self, arguments, *messages, output=None):
        output = output or self.output
        result = run_plot(*arguments, "-o", output)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertEqual(result.stderr.splitlines(),
                         [f"scripts/plot: error: {message}" for message in messages])
        self.assertFalse(Path(self.output).exists())

    def test_missing_file(self):
        missing = f"{self.directory.name}/missing.json"
        self.assert_unusable([golden_path("baseline.json"), missing],
                             f"cannot read {missing}: No such file or directory")
        self.assert_unusable([missing], f"cannot read {missing}: No such file or directory")

    def test_malformed_json(self):
        truncated = golden_path("truncated.json")
        message = (f"{truncated} is not valid JSON: Expecting property name enclosed in double "
                   "quotes at line 5 column 1")
        self.assert_unusable([truncated, golden_path("baseline.json")], message)
        self.assert_unusable([truncated], message)

    def test_not_google_benchmark_json(self):
        path = golden_path("not_google_benchmark.json")
        self.assert_unusable([path],
                             f'{path} is not Google Benchmark JSON: it has no "benchmarks" list')

    def test_output_folder_missing(self):
        folder = Path(self.directory.name) / "missing"
        output = str(folder / "plot.png")
        self.assert_unusable([golden_path("baseline.json")],
                             f"cannot write {output}: the folder {folder} does not exist",
                             output=output)

    def test_output_is_a_folder(self):
        self.assert_unusable([golden_path("baseline.json"), golden_path("slower.json")],
                             f"cannot write {self.directory.name}: it is a folder",
                             output=self.directory.name)

    def test_output_in_a_file(self):
        baseline = golden_path("baseline.json")
        self.assert_unusable([baseline], f"cannot write {baseline}/plot.png: {baseline} is not a "
                             "folder", output=f"{baseline}/plot.png")

    def test_output_not_writable(self):
        # Fails as it is written, even for root.
        self.assert_unusable([golden_path("baseline.json")],
                             "cannot write /dev/full: No space left on device", output="/dev/full")

    def test_problems_of_input_and_output_together(self):
        missing = f"{self.directory.name}/missing.json"
        self.assert_unusable([missing], f"cannot write {self.directory.name}: it is a folder",
                             f"cannot read {missing}: No such file or directory",
                             output=self.directory.name)

    def test_benchmarks_on_one_side(self):
        baseline = golden_path("baseline.json")
        current = golden_path("aggregates_only.json")
        result = run_plot(baseline, current, "-o", self.output)
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"scripts/plot: error: short_encoding/parallel/real_time is only in "
                      f"{baseline}\n", result.stderr)

    def test_aggregates_only(self):
        path = golden_path("aggregates_only.json")
        self.assert_unusable([path], f"{path} holds only aggregate rows (_mean, _median, ...), as "
                             "--benchmark_report_aggregates_only writes them: the test needs one "
                             "row per repetition; run build/benches with --benchmark_repetitions=1 "
                             "(or more) and without --benchmark_report_aggregates_only")

    def test_nothing_to_plot(self):
        path = golden_path("baseline.json")
        self.assert_unusable([path, "--filter", "/serial$"],
                             f"{path} has nothing to plot: no family with both members of a "
                             "speedup pair and no GFLOPS or peak_fraction counter (benchmarks: "
                             "short_encoding/serial, adversarial_encoding/digits/serial)")
        self.assert_unusable([path, "--filter", "^sdpa/"],
                             f"{path} has no benchmark that --filter '^sdpa/' finds: nothing to "
                             "plot")

    def test_usage_errors(self):
        for arguments, message in (
                ([golden_path("baseline.json")], "the following arguments are required: -o"),
                ([golden_path("baseline.json")] * 3 + ["-o", self.output], "3 runs given"),
                ([golden_path("baseline.json"), "--filter", "(", "-o", self.output],
                 "'(' is not a regular expression")):
            result = run_plot(*arguments)
            self.assertEqual(result.returncode, 2)
            self.assertIn(message, result.stderr)


if __name__ == "__main__":
    unittest.main()
