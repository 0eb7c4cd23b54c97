"""bpe-openai (GitHub's bpe crate): its raw binding, since its tiktoken-style wrapper refuses
inputs of a million characters."""


class BpeOpenaiPeer:
    name = "bpe_openai"
    module = "bpe_openai"
    is_reference = False

    def __init__(self, threads):
        from importlib.metadata import version
        self.version = version("bpe-openai")
        self._tokenizers = {}

    def _tokenizer(self, encoding):
        if encoding not in self._tokenizers:
            from bpe_openai import _bindings
            # Its own vocabulary of that name (the id check holds it to ours).
            self._tokenizers[encoding] = _bindings.tokenizer_for_encoding(encoding)
        return self._tokenizers[encoding]

    def encoder(self, encoding):
        return self._tokenizer(encoding).encode

    def batch_encoder(self, encoding):
        return None
