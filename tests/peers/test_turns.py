"""The peers of one family take turns: a round times one repetition of each, odd rounds in reverse
order, a warm repetition in parts that alternate with the others' parts (a cold one in fresh
objects that do), and a peer that fails mid-way is skipped while the others go on."""

import argparse
import unittest
from unittest import mock

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

    def test_a_warm_repetition_alternates_its_parts_with_the_others(self):
        log = []
        # 20 calls a repetition, whatever the calls' speed.
        with mock.patch.object(cli, "find_iterations", return_value=(20, 0, 0)):
            outcome = self.measure([FakePeer("a", log), FakePeer("b", log)], repetitions=1)
        self.assertEqual([outcome[name][0]["iterations"] for name in ("a/family", "b/family")], [20, 20])
        # After preparing (a b), parts of 3, 3, 3, 3, 2, 2, 2, 2 calls in turn, the order reversed
        # at every part: a | b b | a a | ... | a, one block more than parts.
        calls = log[2:]
        self.assertEqual(calls[:9], ["a"] * 3 + ["b"] * 6)
        blocks = 1 + sum(1 for x, y in zip(calls, calls[1:]) if x != y)
        self.assertEqual(blocks, cli.WARM_PARTS + 1)
        self.assertEqual((calls.count("a"), calls.count("b")), (20, 20))

    def test_parts_are_split_evenly_and_combined(self):
        self.assertEqual(cli.split_iterations(3, 8), [1, 1, 1])
        self.assertEqual(cli.split_iterations(20, 8), [3, 3, 3, 3, 2, 2, 2, 2])
        log = []

        def part(name, k):
            return lambda: log.append((name, k)) or (10 * k + 1, k)
        samples = {name: [part(name, k) for k in range(3)] for name in ("a", "b")}
        runs = cli.take_turns(samples, 2, cli.summed_times)
        self.assertEqual(runs, {"a": [(33, 3), (33, 3)], "b": [(33, 3), (33, 3)]})
        self.assertEqual(log[:6], [("a", 0), ("b", 0), ("b", 1), ("a", 1), ("a", 2), ("b", 2)])
        # The steps count on across rounds: the second round starts where the first left the order.
        self.assertEqual(log[6:8], [("b", 0), ("a", 0)])

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
        self.assertEqual(outcome["b/family"][0]["iterations"], cli.COLD_PARTS)

    def test_a_cold_repetition_is_fresh_objects_in_turn_with_the_others(self):
        log = []
        outcome = self.measure([FakePeer("a", log), FakePeer("b", log)], regime="cold", repetitions=1)
        self.assertEqual([outcome[name][0]["iterations"] for name in ("a/family", "b/family")], [cli.COLD_PARTS] * 2)
        # After preparing (each peer's ids check), a fresh object's two calls (the warm-up, then the
        # input) a part, the order reversed at every part: a a | b b b b | a a a a | ...
        calls = log[2:]
        self.assertEqual(calls[:6], ["a"] * 2 + ["b"] * 4)
        blocks = 1 + sum(1 for x, y in zip(calls, calls[1:]) if x != y)
        self.assertEqual(blocks, cli.COLD_PARTS + 1)
        self.assertEqual((calls.count("a"), calls.count("b")), (2 * cli.COLD_PARTS, 2 * cli.COLD_PARTS))


if __name__ == "__main__":
    unittest.main()
