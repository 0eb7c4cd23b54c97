"""wordchipper: loads OpenAI's vocabularies from its cache folder, which it fills by downloading."""

import os
import shutil
import tempfile
from pathlib import Path

from ..vocabularies import tiktoken_file
from .peer import Peer


class WordchipperPeer(Peer):
    name = "wordchipper"
    module = package = "wordchipper"

    def __init__(self, threads):
        super().__init__(threads)
        # Offline, from_pretrained quietly returns a byte-level tokenizer with wrong ids: the local
        # .tiktoken files go where its cache expects them (WORDCHIPPER_CACHE_DIR/openai/NAME/), in
        # a folder of this process (removed when it exits), read when a tokenizer is made.
        self._folder = tempfile.TemporaryDirectory(prefix="tokbench-wordchipper-")
        os.environ["WORDCHIPPER_CACHE_DIR"] = self._folder.name

    def make(self, encoding):
        import wordchipper
        folder = Path(self._folder.name) / "openai" / encoding
        if not folder.exists():
            folder.mkdir(parents=True)
            shutil.copyfile(tiktoken_file(encoding), folder / f"{encoding}.tiktoken")
        return wordchipper.Tokenizer.from_pretrained(encoding)

    def encode_with(self, tokenizer):
        import wordchipper
        none = wordchipper.SpecialFilter.include_none()
        return lambda text: tokenizer.encode(text, none)

    def batch_with(self, tokenizer):
        import wordchipper
        none = wordchipper.SpecialFilter.include_none()
        return lambda documents: tokenizer.encode_batch(documents, none)
