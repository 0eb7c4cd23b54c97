"""Ours, called from Python through this repository's module tokbench (python/, built into
BUILD_DIR/python), so that our rows pay the same call overhead as every peer's: ours_python
returns numpy arrays that own the ids, as gigatoken does; ours_python_list returns lists of int,
as tiktoken and fastokens do (building a list costs about 10 ns an id)."""

import importlib.util
import sys

from ..locations import BUILD_DIR
from ..vocabularies import tiktoken_file
from .peer import Peer

MODULE_DIR = BUILD_DIR / "python"


class OursPythonPeer(Peer):
    name = "ours_python"
    module = "tokbench"
    package = None

    @classmethod
    def unavailable(cls, missing):
        if str(MODULE_DIR) not in sys.path:
            sys.path.insert(0, str(MODULE_DIR))
        if importlib.util.find_spec(cls.module) is None:
            return (f"no module tokbench in {MODULE_DIR} (scripts/test builds it where Debian's pybind11-dev "
                    "and python3-dev are installed)")
        return None

    def installed_version(self):
        return f"this checkout ({MODULE_DIR})"

    def make(self, encoding):
        import tokbench
        # Loaded anew, not get_encoding's shared object: a fresh object must know nothing of the
        # text that an earlier one encoded.
        return tokbench.load_encoding(str(tiktoken_file(encoding)))

    def encode_with(self, tokenizer):
        # The single-document benchmarks run on one CPU: the single-threaded encoder, not the
        # default, which would split a long text between threads that then take turns on it.
        return tokenizer.with_encoder("simd").encode_ordinary_to_numpy

    def batch_with(self, tokenizer):
        return lambda documents: tokenizer.encode_ordinary_batch_to_numpy(documents, num_threads=self.threads)


class OursPythonListPeer(OursPythonPeer):
    name = "ours_python_list"

    def encode_with(self, tokenizer):
        return tokenizer.with_encoder("simd").encode_ordinary

    def batch_with(self, tokenizer):
        return lambda documents: tokenizer.encode_ordinary_batch(documents, num_threads=self.threads)
