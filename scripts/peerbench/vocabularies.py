"""The vocabularies of data/vocab as the peers take them."""

import hashlib
import json

from .locations import DATA_DIR


def tiktoken_file(encoding):
    return DATA_DIR / "vocab" / f"{encoding}.tiktoken"


def load_spec(encoding):
    return json.loads((DATA_DIR / "vocab" / f"{encoding}.json").read_text(encoding="utf-8"))


def load_ranks(encoding):
    from tiktoken.load import load_tiktoken_bpe
    path = tiktoken_file(encoding)
    # tiktoken caches even local files, keyed by path alone; the hash of the file as it is now
    # makes it drop a stale copy.
    return load_tiktoken_bpe(str(path), expected_hash=hashlib.sha256(path.read_bytes()).hexdigest())
