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
            "stream": lambda: self.get("documents")[1:],
        }

    def get(self, key):
        if key not in self._cache:
            self._cache[key] = self._makers[key]()
        return self._cache[key]


# The benchmarks: (family, encoding, input, regime), the families named as in build/benches.
# Regimes:
#   warm  one object encodes the input again and again, as Google Benchmark's iterations do: a
#         peer that caches across calls finds everything cached;
#   cold  each repetition a fresh object, which has encoded only other text (WARM_UP_INPUT),
#         encodes the input once;
#   (the input "stream", the batch's documents after the first, is encoded cold, one call per
#   document in turn: what a server sees of new documents).
# The batch inputs ("documents") go to the peer's batch call, on all threads, measured by wall
# time, hence their /real_time suffix.
FAMILIES = [
    ("short_encoding", "cl100k_base", "short", "warm"),
    ("medium_encoding", "cl100k_base", "medium", "warm"),
    ("long_encoding", "cl100k_base", "long", "warm"),
    ("long_encoding/cold", "cl100k_base", "long", "cold"),
    ("stream_encoding", "cl100k_base", "stream", "cold"),
    ("short_encoding_o200k", "o200k_base", "short", "warm"),
    ("medium_encoding_o200k", "o200k_base", "medium", "warm"),
    ("long_encoding_o200k", "o200k_base", "long", "warm"),
    ("long_encoding_o200k/cold", "o200k_base", "long", "cold"),
    ("stream_encoding_o200k", "o200k_base", "stream", "cold"),
    ("multilingual_encoding", "cl100k_base", "multilingual", "warm"),
    ("adversarial_encoding/letters", "cl100k_base", "letters", "warm"),
    ("adversarial_encoding/digits", "cl100k_base", "digits", "warm"),
    ("adversarial_encoding/spaces", "cl100k_base", "spaces", "warm"),
    ("adversarial_encoding/base64", "cl100k_base", "base64", "warm"),
    ("encode_batch/real_time", "cl100k_base", "documents", "warm"),
    ("encode_batch/cold/real_time", "cl100k_base", "documents", "cold"),
]
BATCH_INPUT = "documents"
# Inputs that have crashed a peer's whole process (a Rust panic that aborts, a regex engine out of
# stack): each peer encodes them in a process of its own, so that a crash costs that benchmark only.
ISOLATED_INPUTS = frozenset({"letters", "digits", "spaces", "base64"})
WARM_UP_INPUT = "multilingual"
