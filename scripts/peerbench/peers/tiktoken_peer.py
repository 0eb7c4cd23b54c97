"""tiktoken itself, the reference: our ids must equal its ids."""

from ..vocabularies import load_ranks, load_spec


class TiktokenPeer:
    name = "tiktoken"
    module = "tiktoken"
    # Our ids must equal tiktoken's: a difference is a fault of ours, not a peer's limit.
    is_reference = True

    def __init__(self, threads):
        import tiktoken
        self.version = tiktoken.__version__
        self.threads = threads
        self._encodings = {}

    def _encoding(self, encoding):
        if encoding not in self._encodings:
            import tiktoken
            spec = load_spec(encoding)
            self._encodings[encoding] = tiktoken.Encoding(
                encoding, pat_str=spec["pat_str"], mergeable_ranks=load_ranks(encoding),
                special_tokens=spec["special_tokens"])
        return self._encodings[encoding]

    def encoder(self, encoding):
        return self._encoding(encoding).encode_ordinary

    def batch_encoder(self, encoding):
        enc = self._encoding(encoding)
        return lambda documents: enc.encode_ordinary_batch(documents, num_threads=self.threads)
