"""fastokens: caches across calls; a flat batch call for bulk work."""

import struct

from ..vocabularies import tiktoken_file


class FastokensPeer:
    name = "fastokens"
    module = "fastokens"
    is_reference = False

    def __init__(self, threads):
        # Read when its thread pool starts, at the first batch (it is built on rayon).
        import os
        os.environ.setdefault("RAYON_NUM_THREADS", str(threads))
        from importlib.metadata import version
        self.version = version("fastokens")
        self._tokenizers = {}

    def _tokenizer(self, encoding):
        if encoding not in self._tokenizers:
            import fastokens
            self._tokenizers[encoding] = fastokens.Tokenizer.from_tiktoken(str(tiktoken_file(encoding)),
                                                                           encoding=encoding)
        return self._tokenizers[encoding]

    def encoder(self, encoding):
        tok = self._tokenizer(encoding)
        return lambda text: tok.encode_ordinary(text).ids

    def batch_encoder(self, encoding):
        tok = self._tokenizer(encoding)
        return lambda documents: _split_flat(*tok.encode_batch_flat(documents))


def _split_flat(ids, offsets):
    """encode_batch_flat's (ids as little-endian uint32 bytes, len + 1 uint64 offsets) as one id
    sequence per document, for the id check; views, not copies, so the timing is the call's."""
    tokens = memoryview(ids).cast("I")
    bounds = struct.unpack(f"<{len(offsets) // 8}Q", offsets)
    return [tokens[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]
