"""bpe-openai (GitHub's bpe crate): its raw binding, since its tiktoken-style wrapper refuses
inputs of a million characters. No batch call."""

from .peer import Peer


class BpeOpenaiPeer(Peer):
    name = "bpe_openai"
    module = "bpe_openai"
    package = "bpe-openai"

    def make(self, encoding):
        from bpe_openai import _bindings
        # Its own vocabulary of that name (the id check holds it to ours).
        return _bindings.tokenizer_for_encoding(encoding)

    def encode_with(self, tokenizer):
        return tokenizer.encode
