"""fastokens: caches across calls; a flat batch call for bulk work."""

import os
import struct

from ..vocabularies import tiktoken_file
from .peer import Peer


class FastokensPeer(Peer):
    name = "fastokens"
    module = package = "fastokens"

    def __init__(self, threads):
        super().__init__(threads)
        # Read when its thread pool (rayon's) starts, at the first batch.
        os.environ.setdefault("RAYON_NUM_THREADS", str(threads))

    def make(self, encoding):
        import fastokens
        return fastokens.Tokenizer.from_tiktoken(str(tiktoken_file(encoding)), encoding=encoding)

    def encode_with(self, tokenizer):
        return lambda text: tokenizer.encode_ordinary(text).ids

    def batch_with(self, tokenizer):
        return lambda documents: split_flat(*tokenizer.encode_batch_flat(documents))


def split_flat(ids, offsets):
    """encode_batch_flat's (ids as little-endian uint32 bytes, len + 1 little-endian uint64
    offsets) as one id sequence per document: views, not copies, so the time is the call's."""
    tokens = memoryview(ids).cast("I")
    bounds = struct.unpack(f"<{len(offsets) // 8}Q", offsets)
    return [tokens[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]
