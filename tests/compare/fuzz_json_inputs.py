"""scripts/compare and scripts/baselines given hostile JSON, in process: every input is compared
(exit status 0 or 1) or refused with exit status 2 and one message per problem on standard error
("PROGRAM: error: ..."), never a traceback. Hypothesis (Debian's python3-hypothesis) makes the
inputs: arbitrary JSON documents, real runs with one value anywhere replaced by arbitrary JSON
or removed, and real files cut short or with bytes changed. Examples are derandomized, so a run
is repeatable; HYPOTHESIS_EXAMPLES sets how many each test tries (default 150)."""

import contextlib
import io
import json
import os
import tempfile
import unittest
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from golden_files import golden_path
from repository import REPO_ROOT

from benchcompare import baselines_cli, cli

# Hypothesis keeps caches in a folder of its own: a temporary one, not the source tree.
_HOME = tempfile.TemporaryDirectory()
set_hypothesis_home_dir(_HOME.name)

SETTINGS = settings(max_examples=int(os.environ.get("HYPOTHESIS_EXAMPLES", "150")), deadline=None,
                    database=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Real runs of each kind the programs read.
BENCHMARK_RUNS = ["baseline.json", "xeon_quick_1.json", "aggregates_only.json"]
COUNT_RUNS = ["counts.json"]

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=16)


@st.composite
def edited_runs(draw, names):
    """A real run with the value at a random path replaced by arbitrary JSON, or removed."""
    with open(golden_path(draw(st.sampled_from(names))), encoding="utf-8") as file:
        document = json.load(file)
    parent, key = None, None
    node = document
    for _ in range(draw(st.integers(0, 4))):
        if isinstance(node, dict) and node:
            parent, key = node, draw(st.sampled_from(sorted(node)))
        elif isinstance(node, list) and node:
            parent, key = node, draw(st.integers(0, len(node) - 1))
        else:
            break
        node = parent[key]
    if parent is None:
        return json.dumps(draw(JSON_VALUES)).encode()
    if draw(st.booleans()):
        parent[key] = draw(JSON_VALUES)
    elif isinstance(parent, dict):
        del parent[key]
    else:
        parent.pop(key)
    return json.dumps(document).encode()


@st.composite
def damaged_files(draw, names):
    """A real file cut short, or with a few bytes replaced."""
    data = bytearray(Path(golden_path(draw(st.sampled_from(names)))).read_bytes())
    if draw(st.booleans()):
        return bytes(data[:draw(st.integers(0, len(data)))])
    for _ in range(draw(st.integers(1, 8))):
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    return bytes(data)


def hostile_inputs(names):
    return (st.builds(lambda value: json.dumps(value).encode(), JSON_VALUES) | edited_runs(names) |
            damaged_files(names) | st.binary(max_size=64))


class HostileJsonTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def write(self, data):
        path = Path(self.directory.name) / "hostile.json"
        path.write_bytes(data)
        return str(path)

    def run_program(self, program, main, arguments):
        """Runs MAIN(ARGUMENTS); fails on an exception or a refusal without its messages."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(arguments)
            except SystemExit as exit_:
                status = exit_.code
        self.assertIn(status, (0, 1, 2), err.getvalue())
        if status == 2:
            lines = err.getvalue().splitlines()
            self.assertTrue(lines, "refused without a message")
            for line in lines:
                self.assertTrue(line.startswith(f"{program}: error: "), err.getvalue())

    @SETTINGS
    @given(hostile_inputs(BENCHMARK_RUNS))
    def test_compare_as_current_or_baseline(self, data):
        hostile = self.write(data)
        self.run_program(cli.PROGRAM, cli.main, [golden_path("baseline.json"), hostile])
        self.run_program(cli.PROGRAM, cli.main, [hostile, golden_path("baseline.json"), "--markdown"])

    @SETTINGS
    @given(hostile_inputs(COUNT_RUNS))
    def test_compare_counts(self, data):
        hostile = self.write(data)
        self.run_program(cli.PROGRAM, cli.main, ["--counts", golden_path("counts.json"), hostile])
        self.run_program(cli.PROGRAM, cli.main, ["--counts", hostile, golden_path("counts.json")])

    @SETTINGS
    @given(hostile_inputs(BENCHMARK_RUNS))
    def test_baselines(self, data):
        hostile = self.write(data)
        for command in ("find", "floors"):
            self.run_program(baselines_cli.PROGRAM, baselines_cli.main,
                             [command, hostile, "--dir", str(REPO_ROOT / "data" / "baselines")])
        saved = Path(self.directory.name) / "saved"
        saved.mkdir(exist_ok=True)
        self.run_program(baselines_cli.PROGRAM, baselines_cli.main, ["save", hostile, "--dir", str(saved)])


if __name__ == "__main__":
    unittest.main()
