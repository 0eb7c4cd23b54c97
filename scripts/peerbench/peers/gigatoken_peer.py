"""gigatoken: caches pretokens to ids across calls."""

from ..vocabularies import tiktoken_file
from .peer import Peer


class GigatokenPeer(Peer):
    name = "gigatoken"
    module = package = "gigatoken"

    def make(self, encoding):
        import gigatoken
        # special_tokens={}: with its default special tokens it matches <|endoftext|> in ordinary
        # text. The pattern comes from the file's name (cl100k_base, o200k_base).
        return gigatoken.Tokenizer.from_tiktoken(str(tiktoken_file(encoding)), special_tokens={})

    def encode_with(self, tokenizer):
        return tokenizer.encode

    def batch_with(self, tokenizer):
        return lambda documents: tokenizer.encode_batch_list(documents, parallel=True)
