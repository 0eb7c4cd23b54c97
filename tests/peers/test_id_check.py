"""The id check: a peer is measured only where its ids equal ours, whatever sequence type it returns."""

import array
import unittest

import repository  # noqa: F401  (makes peerbench importable)
from peerbench.id_check import check_ids
from peerbench.peers.fastokens_peer import split_flat


class FakeOurs:
    """Ours, as OurIds gives them: the ids of a text."""

    def __init__(self, ids_of):
        self.ids_of = ids_of

    def of(self, encoding, text):
        return self.ids_of[text]


class FakePeer:
    def __init__(self, ids_of):
        self.ids_of = ids_of

    def encoder(self, encoding):
        return lambda text: self.ids_of[text.encode()]

    def batch_encoder(self, encoding):
        return lambda documents: [self.ids_of[d.encode()] for d in documents]


OURS = FakeOurs({b"ab": [1, 2], b"cd": [3]})


class IdCheckTest(unittest.TestCase):
    def test_equal_ids_pass_in_any_sequence_type(self):
        for ids in ({b"ab": [1, 2], b"cd": [3]}, {b"ab": array.array("I", [1, 2]), b"cd": (3,)}):
            peer = FakePeer(ids)
            self.assertIsNone(check_ids(peer, "cl100k_base", [b"ab", b"cd"], False, OURS))
            self.assertIsNone(check_ids(peer, "cl100k_base", [b"ab", b"cd"], True, OURS))

    def test_a_difference_is_named_with_its_place(self):
        peer = FakePeer({b"ab": [1, 5], b"cd": [3]})
        self.assertEqual(check_ids(peer, "cl100k_base", [b"ab"], False, OURS),
                         "first difference at token 1: 5 vs ours 2")
        self.assertEqual(check_ids(peer, "cl100k_base", [b"cd", b"ab"], True, OURS),
                         "document 1: first difference at token 1: 5 vs ours 2")

    def test_a_prefix_is_a_difference(self):
        peer = FakePeer({b"ab": [1], b"cd": [3]})
        self.assertEqual(check_ids(peer, "cl100k_base", [b"ab"], False, OURS), "1 tokens vs ours 2")


class FlatBatchTest(unittest.TestCase):
    def test_split_flat(self):
        ids = array.array("I", [7, 8, 9]).tobytes()
        offsets = array.array("Q", [0, 2, 2, 3]).tobytes()
        self.assertEqual([list(d) for d in split_flat(ids, offsets)], [[7, 8], [], [9]])


if __name__ == "__main__":
    unittest.main()
