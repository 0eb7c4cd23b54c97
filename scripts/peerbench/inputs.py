"""The inputs of the encoding benchmarks, byte for byte as benches/bench_inputs.cpp builds them."""

import random

from .locations import DATA_DIR

# See the comments of benches/bench_inputs.cpp.
SHORT_TEXT = b"The quick brown fox doesn't jump over 12 lazy dogs, it naps."
DOCUMENT_BYTES = 4096
BATCH_DOCUMENTS = 256
ADVERSARIAL_BYTES = 1 << 20
BASE64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
UDHR_FILES = ["udhr_arb.txt", "udhr_cmn_hans.txt", "udhr_eng.txt", "udhr_hin.txt", "udhr_jpn.txt", "udhr_rus.txt"]


def read_corpus(name):
    return (DATA_DIR / "corpus" / name).read_bytes()


def whole_lines(text, begin):
    """The longest run of whole lines from `begin` (a line start) of at most DOCUMENT_BYTES."""
    last_newline = text.rfind(b"\n", begin, begin + DOCUMENT_BYTES)
    if last_newline < 0:
        raise ValueError(f"benchmark input has a line longer than {DOCUMENT_BYTES} bytes at offset {begin}")
    return text[begin:last_newline + 1]


def line_start_from(text, offset):
    if offset == 0:
        return 0
    newline = text.find(b"\n", offset - 1)
    if newline < 0:
        raise ValueError("benchmark input has no line after the offset")
    return newline + 1


def batch_documents(corpus):
    stride = len(corpus) // BATCH_DOCUMENTS
    return [whole_lines(corpus, line_start_from(corpus, i * stride)) for i in range(BATCH_DOCUMENTS)]


def mt19937(seed):
    """A random.Random whose getrandbits(k <= 32) is the top k bits of std::mt19937(seed)()."""
    state = [seed & 0xFFFFFFFF]
    for i in range(1, 624):
        state.append((1812433253 * (state[-1] ^ (state[-1] >> 30)) + i) & 0xFFFFFFFF)
    gen = random.Random()
    gen.setstate((3, tuple(state) + (624,), None))
    return gen


def base64_text():
    gen = mt19937(1)
    return bytes(BASE64_ALPHABET[gen.getrandbits(6)] for _ in range(ADVERSARIAL_BYTES))


class Inputs:
    """The benchmark inputs as bytes, each built on first use."""

    def __init__(self):
        self._cache = {}
        self._makers = {
            "short": lambda: SHORT_TEXT,
            "medium": lambda: self.get("documents")[0],
            "long": lambda: read_corpus("en_shakespeare.txt"),
            "multilingual": lambda: b"".join(read_corpus(name) for name in UDHR_FILES),
            "letters": lambda: b"a" * ADVERSARIAL_BYTES,
            "digits": lambda: b"7" * ADVERSARIAL_BYTES,
            "spaces": lambda: b" " * ADVERSARIAL_BYTES,
            "base64": base64_text,
            "documents": lambda: batch_documents(self.get("long")),
        }

    def get(self, key):
        if key not in self._cache:
            self._cache[key] = self._makers[key]()
        return self._cache[key]


# Families as in build/benches: (family, encoding, input). The batch family is the one input
# that is a list of documents; it is measured by wall time, hence its /real_time suffix.
FAMILIES = [
    ("short_encoding", "cl100k_base", "short"),
    ("medium_encoding", "cl100k_base", "medium"),
    ("long_encoding", "cl100k_base", "long"),
    ("short_encoding_o200k", "o200k_base", "short"),
    ("medium_encoding_o200k", "o200k_base", "medium"),
    ("long_encoding_o200k", "o200k_base", "long"),
    ("multilingual_encoding", "cl100k_base", "multilingual"),
    ("adversarial_encoding/letters", "cl100k_base", "letters"),
    ("adversarial_encoding/digits", "cl100k_base", "digits"),
    ("adversarial_encoding/spaces", "cl100k_base", "spaces"),
    ("adversarial_encoding/base64", "cl100k_base", "base64"),
    ("encode_batch/real_time", "cl100k_base", "documents"),
]
