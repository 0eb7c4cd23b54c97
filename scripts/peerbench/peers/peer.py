"""What every tokenizer peer shares: its tokenizer objects, one per encoding kept for the warm
benchmarks, and fresh ones for the cold and stream benchmarks."""

from importlib.metadata import version


class Peer:
    """A peer defines name, module, package (its PyPI name) and make(encoding), a new tokenizer
    object; encode_with(tokenizer) gives the function of one str to its ids, batch_with(tokenizer)
    the function of a list of str to one id sequence per document, or None without a batch call."""

    is_reference = False

    def __init__(self, threads):
        self.threads = threads
        self.version = version(self.package)
        self._tokenizers = {}

    def tokenizer(self, encoding):
        """The object of the warm benchmarks: made once, kept."""
        if encoding not in self._tokenizers:
            self._tokenizers[encoding] = self.make(encoding)
        return self._tokenizers[encoding]

    def encoder(self, encoding, fresh=False):
        return self.encode_with(self.make(encoding) if fresh else self.tokenizer(encoding))

    def batch_encoder(self, encoding, fresh=False):
        return self.batch_with(self.make(encoding) if fresh else self.tokenizer(encoding))

    def batch_with(self, tokenizer):
        return None
