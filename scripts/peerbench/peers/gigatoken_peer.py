"""gigatoken: caches pretokens to ids across calls."""

from ..vocabularies import tiktoken_file


class GigatokenPeer:
    name = "gigatoken"
    module = "gigatoken"
    is_reference = False

    def __init__(self, threads):
        from importlib.metadata import version
        self.version = version("gigatoken")
        self.threads = threads
        self._tokenizers = {}

    def _tokenizer(self, encoding):
        if encoding not in self._tokenizers:
            import gigatoken
            # special_tokens={}: with its default special tokens it matches <|endoftext|> in
            # ordinary text. The pattern comes from the file's name (cl100k_base, o200k_base).
            self._tokenizers[encoding] = gigatoken.Tokenizer.from_tiktoken(str(tiktoken_file(encoding)),
                                                                           special_tokens={})
        return self._tokenizers[encoding]

    def encoder(self, encoding):
        return self._tokenizer(encoding).encode

    def batch_encoder(self, encoding):
        tok = self._tokenizer(encoding)
        return lambda documents: tok.encode_batch_list(documents, parallel=True)
