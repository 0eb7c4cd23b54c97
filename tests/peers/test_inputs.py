"""scripts/peers rebuilds the inputs of the encoding benchmarks byte for byte: its builders against
the C++ ones (BENCH_INPUTS_DUMP, the program that writes them, set by ctest)."""

import os
import subprocess
import tempfile
import unittest
from pathlib import Path

import repository  # noqa: F401  (makes peerbench importable)
from peerbench.inputs import FAMILIES, Inputs

DUMP = os.environ.get("BENCH_INPUTS_DUMP")


@unittest.skipUnless(DUMP, "BENCH_INPUTS_DUMP names no program (ctest sets it when the benches are built)")
class SameBytesAsTheBenchesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        subprocess.run([DUMP, cls.folder.name], check=True)
        cls.inputs = Inputs()

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def test_every_single_document_family(self):
        written = {path.stem for path in Path(self.folder.name).glob("*.bin") if not path.stem.startswith("document")}
        checked = set()
        for family, _, key, regime in FAMILIES:
            if regime != "warm" or key == "documents":
                continue
            name = family.replace("/", "-")
            with self.subTest(family=family):
                self.assertEqual(self.inputs.get(key), (Path(self.folder.name) / f"{name}.bin").read_bytes())
            checked.add(name)
        # Every family of the benches has its Python twin.
        self.assertEqual(checked, written)

    def test_the_batch_documents_and_the_stream(self):
        documents = self.inputs.get("documents")
        files = sorted(Path(self.folder.name).glob("document-*.bin"))
        self.assertEqual(len(documents), len(files))
        self.assertEqual(documents, [path.read_bytes() for path in files])
        self.assertEqual(self.inputs.get("stream"), documents[1:])


class SizesTest(unittest.TestCase):
    def test_sizes_the_benches_document(self):
        inputs = Inputs()
        self.assertEqual(len(inputs.get("short")), 60)
        self.assertEqual(len(inputs.get("medium")), 4070)
        self.assertEqual(len(inputs.get("long")), 1115394)
        self.assertEqual(len(inputs.get("multilingual")), 141711)
        self.assertEqual([len(inputs.get(k)) for k in ("letters", "digits", "spaces", "base64")], [1 << 20] * 4)
        self.assertEqual((len(inputs.get("documents")), sum(map(len, inputs.get("documents")))), (256, 1043348))


if __name__ == "__main__":
    unittest.main()
