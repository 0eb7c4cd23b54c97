"""quicktok-v1: ships its own copies of the vocabularies."""

from .peer import Peer


class QuicktokPeer(Peer):
    name = "quicktok"
    module = "quicktok"
    package = "quicktok-v1"

    def make(self, encoding):
        import quicktok
        # Its own vocabulary of that name (the id check holds it to ours), no special tokens.
        return quicktok.Tokenizer(encoding, "")

    def encode_with(self, tokenizer):
        return tokenizer.encode_ordinary

    def batch_with(self, tokenizer):
        def encode(documents):
            tokens, offsets = tokenizer.encode_batch(documents, threads=self.threads)
            return [tokens[offsets[i]:offsets[i + 1]] for i in range(len(documents))]
        return encode
