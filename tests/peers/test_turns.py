"""The peers of one family take turns: a round times one repetition of each, odd rounds in reverse
order, and a peer that fails mid-way is skipped while the others go on."""

import argparse
import unittest

import repository  # noqa: F401  (makes peerbench importable)
from peerbench import cli


class FakePeer:
    """A peer whose every call appends its name to LOG; it raises from its FAIL_AT-th call on."""

    def __init__(self, name, log, fail_at=None):
        self.name, self.log, self.fail_at = name, log, fail_at
        self.calls = 0

    def encoder(self, encoding, fresh=False):
        def encode(text):
            self.calls += 1
            if self.fail_at is not None and self.calls >= self.fail_at:
                raise RuntimeError("boom")
            self.log.append(self.name)
            return [1, 2, 3]
        return encode

    def batch_encoder(self, encoding, fresh=False):
        return None


class FakeInputs:
    def get(self, key):
        return b"some text"


class TurnsTest(unittest.TestCase):
    def measure(self, peers, regime="warm", repetitions=3):
        # A minimum time of a nanosecond: one call a repetition, so the log shows the order.
        args = argparse.Namespace(repetitions=repetitions, min_time=1e-9)
        members = [(peer, f"{peer.name}/family", index, "cl100k_base", "long", regime) for index, peer in enumerate(peers)]
        return cli.measure_together(members, FakeInputs(), None, args)

    def test_rounds_alternate_their_order(self):
        log = []
        outcome = self.measure([FakePeer("a", log), FakePeer("b", log)])
        # Preparing: each peer's ids, then its iteration count; then the rounds a b, b a, a b.
        self.assertEqual(log, ["a", "a", "b", "b", "a", "b", "b", "a", "a", "b"])
        self.assertEqual([len(outcome[name]) for name in ("a/family", "b/family")], [3, 3])
        self.assertEqual([r["repetition_index"] for r in outcome["a/family"]], [0, 1, 2])
        self.assertEqual(outcome["b/family"][0]["family_index"], 1)

    def test_a_peer_failing_in_a_round_is_skipped_and_the_others_go_on(self):
        log = []
        outcome = self.measure([FakePeer("a", log), FakePeer("b", log, fail_at=4), FakePeer("c", log)])
        self.assertIsInstance(outcome["b/family"], cli.Skipped)
        self.assertEqual(str(outcome["b/family"]), "b failed: RuntimeError: boom")
        self.assertEqual(len(outcome["a/family"]), 3)
        self.assertEqual(len(outcome["c/family"]), 3)
        # b's first round passed (its third call), its second failed: no later round asks it.
        self.assertEqual(log[6:], ["a", "b", "c", "c", "a", "a", "c"])

    def test_a_peer_failing_while_prepared_is_skipped_before_the_rounds(self):
        log = []
        outcome = self.measure([FakePeer("a", log, fail_at=1), FakePeer("b", log)], regime="cold", repetitions=2)
        self.assertIsInstance(outcome["a/family"], cli.Skipped)
        self.assertEqual(len(outcome["b/family"]), 2)
        self.assertEqual(outcome["b/family"][0]["iterations"], 1)


if __name__ == "__main__":
    unittest.main()
