"""The tokenizer peers, in the order of the tables. Each is a class with:

  name           the prefix of its benchmark names (tiktoken/long_encoding, ...)
  module         the Python module it needs (scripts/peers --setup installs it)
  is_reference   True for tiktoken alone: our ids must equal its ids, so a difference is a fault
                 of ours, not a peer's limit
  version        set by the constructor, which takes the threads of the batch benchmarks
  encoder(encoding)        a function of one str to its ids (a sequence of ints)
  batch_encoder(encoding)  a function of a list of str to one sequence of ids per document, or
                           None when the peer has no batch call

OursPythonPeer and OursPythonListPeer are ours, through the module tokbench of this build, returning
numpy arrays and lists of int.

Every peer is configured offline, from data/vocab, with no special tokens recognised in ordinary
text (the benchmarks encode ordinary text, as our encode_ordinary does).
"""

from .bpe_openai_peer import BpeOpenaiPeer
from .fastokens_peer import FastokensPeer
from .gigatoken_peer import GigatokenPeer
from .hf_tokenizers_peer import HfTokenizersPeer
from .kitoken_peer import KitokenPeer
from .ours_python_peer import OursPythonListPeer, OursPythonPeer
from .quicktok_peer import QuicktokPeer
from .tiktoken_peer import TiktokenPeer
from .wordchipper_peer import WordchipperPeer

TOKENIZER_PEERS = [TiktokenPeer, HfTokenizersPeer, GigatokenPeer, FastokensPeer, QuicktokPeer, WordchipperPeer,
                   BpeOpenaiPeer, KitokenPeer, OursPythonPeer, OursPythonListPeer]
# Ours among them: compared with the others, not counted as one of them.
OURS_PEERS = (OursPythonPeer.name, OursPythonListPeer.name)
