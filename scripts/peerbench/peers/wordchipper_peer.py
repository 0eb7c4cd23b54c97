"""wordchipper: loads OpenAI's vocabularies from its cache folder, which it fills by downloading."""

import os
import shutil
import tempfile
from pathlib import Path

from ..vocabularies import tiktoken_file


class WordchipperPeer:
    name = "wordchipper"
    module = "wordchipper"
    is_reference = False

    def __init__(self, threads):
        from importlib.metadata import version
        self.version = version("wordchipper")
        # Offline, from_pretrained quietly returns a byte-level tokenizer with wrong ids: the
        # local .tiktoken files go where its cache expects them (WORDCHIPPER_CACHE_DIR/openai/NAME/),
        # in a folder of this process, read when the first tokenizer is made.
        self._cache = Path(tempfile.mkdtemp(prefix="tokbench-wordchipper-"))
        os.environ["WORDCHIPPER_CACHE_DIR"] = str(self._cache)
        self._tokenizers = {}

    def __del__(self):
        shutil.rmtree(self._cache, ignore_errors=True)

    def _tokenizer(self, encoding):
        if encoding not in self._tokenizers:
            import wordchipper
            folder = self._cache / "openai" / encoding
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(tiktoken_file(encoding), folder / f"{encoding}.tiktoken")
            self._tokenizers[encoding] = wordchipper.Tokenizer.from_pretrained(encoding)
        return self._tokenizers[encoding]

    def encoder(self, encoding):
        import wordchipper
        tok, none = self._tokenizer(encoding), wordchipper.SpecialFilter.include_none()
        return lambda text: tok.encode(text, none)

    def batch_encoder(self, encoding):
        import wordchipper
        tok, none = self._tokenizer(encoding), wordchipper.SpecialFilter.include_none()
        return lambda documents: tok.encode_batch(documents, none)
