"""tiktoken itself, the reference: our ids must equal its ids."""

from ..vocabularies import load_ranks, load_spec
from .peer import Peer


class TiktokenPeer(Peer):
    name = "tiktoken"
    module = package = "tiktoken"
    is_reference = True

    def make(self, encoding):
        import tiktoken
        spec = load_spec(encoding)
        return tiktoken.Encoding(encoding, pat_str=spec["pat_str"], mergeable_ranks=load_ranks(encoding),
                                 special_tokens=spec["special_tokens"])

    def encode_with(self, tokenizer):
        return tokenizer.encode_ordinary

    def batch_with(self, tokenizer):
        return lambda documents: tokenizer.encode_ordinary_batch(documents, num_threads=self.threads)
