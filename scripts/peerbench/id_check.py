"""Our ids, from the tokenize program, and the check of a peer's ids against them."""

import struct
import subprocess
import sys
import tempfile


class OurIds:
    def __init__(self, tokenize):
        self.tokenize = tokenize
        self._cache = {}

    def of(self, encoding, text):
        key = (encoding, text)
        if key not in self._cache:
            with tempfile.NamedTemporaryFile() as f:
                f.write(text)
                f.flush()
                command = [str(self.tokenize), "--encoding", encoding, "--format", "u32", f.name]
                done = subprocess.run(command, capture_output=True)
            if done.returncode != 0:
                sys.exit(f"error: {' '.join(command)} failed: {done.stderr.decode(errors='replace').strip()}")
            out = done.stdout
            self._cache[key] = list(struct.unpack(f"<{len(out) // 4}I", out))
        return self._cache[key]


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"first difference at token {i}: {x} vs ours {y}"
    return f"{len(a)} tokens vs ours {len(b)}"


def check_ids(peer, encoding, texts, batch, ours):
    """None if the peer's ids equal ours on every text, else why not."""
    strings = [t.decode("utf-8") for t in texts]
    if batch:
        got = peer.batch_encoder(encoding)(strings)
    else:
        got = [peer.encoder(encoding)(s) for s in strings]
    for i, (text, ids) in enumerate(zip(texts, got)):
        expected = ours.of(encoding, text)
        if list(ids) != expected:
            where = f"document {i}: " if batch else ""
            return where + first_difference(ids, expected)
    return None
