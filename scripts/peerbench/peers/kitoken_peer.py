"""kitoken: reads the .tiktoken file itself."""

from ..vocabularies import tiktoken_file
from .peer import Peer


class KitokenPeer(Peer):
    name = "kitoken"
    module = package = "kitoken"

    def make(self, encoding):
        import kitoken
        return kitoken.Kitoken.from_tiktoken_file(str(tiktoken_file(encoding)))

    def encode_with(self, tokenizer):
        # encode_specials=False: special-token text is ordinary text.
        return lambda text: tokenizer.encode(text, False)

    def batch_with(self, tokenizer):
        return lambda documents: tokenizer.encode_all(documents, False)
