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
        self.version = self.installed_version()
        self._tokenizers = {}

    @classmethod
    def unavailable(cls, missing):
        """Why the peer cannot run, given the missing modules of environment.PEER_MODULES, or None."""
        if cls.module in missing:
            return f"module {cls.module} not installed (scripts/peers --setup installs it)"
        return None

    def installed_version(self):
        return version(self.package)

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
