"""Hugging Face tokenizers, its BPE model built from the same ranks."""

import os

from ..vocabularies import load_ranks, load_spec
from .peer import Peer


def bytes_to_unicode():
    """GPT-2's byte-level alphabet: a printable character for every byte, as HF's ByteLevel uses."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    chars = printable[:]
    extra = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + extra)
            extra += 1
    return {b: chr(c) for b, c in zip(printable, chars)}


def split_by_ranks(ranks, token, max_rank):
    """tiktoken's BPE of `token` using only tokens ranked below max_rank. For a token of rank
    max_rank, two parts are the pair that BPE merges into it."""
    parts = [bytes([b]) for b in token]
    while True:
        best = None
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and rank < max_rank and (best is None or rank < best[0]):
                best = (rank, i)
        if best is None:
            return parts
        i = best[1]
        parts[i:i + 2] = [parts[i] + parts[i + 1]]


class HfTokenizersPeer(Peer):
    """HF tokenizers cannot read a .tiktoken file; its BPE model is built from the same ranks as
    GPT-2-style vocab and merges (the merge of each token is the pair tiktoken's BPE forms it
    from, ordered by rank), with ignore_merges so that a piece in the vocabulary is one token
    as in tiktoken, and the pattern as a Split pre-tokenizer. Whether that reproduces tiktoken
    is checked on every input; where it does not, the input is skipped. Its word cache keeps its
    default size, as in ordinary use."""

    name = "hf_tokenizers"
    module = "tokenizers"
    package = "tokenizers"

    def __init__(self, threads):
        super().__init__(threads)
        # Read when rayon's pool starts, at the first batch.
        os.environ["RAYON_NUM_THREADS"] = str(threads)
        self._models = {}

    def make(self, encoding):
        from tokenizers import Regex, Tokenizer, models, pre_tokenizers
        if encoding not in self._models:
            self._models[encoding] = _vocabulary_and_merges(encoding)
        vocabulary, merges, pattern = self._models[encoding]
        tok = Tokenizer(models.BPE(vocab=vocabulary, merges=merges, ignore_merges=True))
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ])
        return tok

    def encode_with(self, tokenizer):
        return lambda text: tokenizer.encode(text, add_special_tokens=False).ids

    def batch_with(self, tokenizer):
        return lambda documents: [e.ids for e in tokenizer.encode_batch(documents, add_special_tokens=False)]


def _vocabulary_and_merges(encoding):
    """The BPE model's vocabulary and merges, as GPT-2-style unicode strings, and the pattern."""
    ranks = load_ranks(encoding)
    to_unicode = bytes_to_unicode()

    def unicode_of(token):
        return "".join(to_unicode[b] for b in token)

    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) > 1:
            parts = split_by_ranks(ranks, token, rank)
            # A token its own BPE cannot reach has no merge; it is still found whole.
            if len(parts) == 2:
                merges.append((unicode_of(parts[0]), unicode_of(parts[1])))
    return {unicode_of(t): r for t, r in ranks.items()}, merges, load_spec(encoding)["pat_str"]
