"""quicktok-v1: ships its own copies of the vocabularies."""


class QuicktokPeer:
    name = "quicktok"
    module = "quicktok"
    is_reference = False

    def __init__(self, threads):
        from importlib.metadata import version
        self.version = version("quicktok-v1")
        self.threads = threads
        self._tokenizers = {}

    def _tokenizer(self, encoding):
        if encoding not in self._tokenizers:
            import quicktok
            # Its own vocabulary of that name (the id check holds it to ours), no special tokens.
            self._tokenizers[encoding] = quicktok.Tokenizer(encoding, "")
        return self._tokenizers[encoding]

    def encoder(self, encoding):
        return self._tokenizer(encoding).encode_ordinary

    def batch_encoder(self, encoding):
        tok = self._tokenizer(encoding)

        def encode(documents):
            tokens, offsets = tok.encode_batch(documents, threads=self.threads)
            return [tokens[offsets[i]:offsets[i + 1]] for i in range(len(documents))]
        return encode
