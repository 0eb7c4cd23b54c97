"""kitoken: reads the .tiktoken file itself."""

from ..vocabularies import tiktoken_file


class KitokenPeer:
    name = "kitoken"
    module = "kitoken"
    is_reference = False

    def __init__(self, threads):
        from importlib.metadata import version
        self.version = version("kitoken")
        self._tokenizers = {}

    def _tokenizer(self, encoding):
        if encoding not in self._tokenizers:
            import kitoken
            self._tokenizers[encoding] = kitoken.Kitoken.from_tiktoken_file(str(tiktoken_file(encoding)))
        return self._tokenizers[encoding]

    def encoder(self, encoding):
        # encode_specials=False: special-token text is ordinary text.
        tok = self._tokenizer(encoding)
        return lambda text: tok.encode(text, False)

    def batch_encoder(self, encoding):
        tok = self._tokenizer(encoding)
        return lambda documents: tok.encode_all(documents, False)
