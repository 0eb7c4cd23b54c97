"""Minimum effects: the defaults per family, overrides (last match wins), and bad rules."""

import tempfile
import unittest
from pathlib import Path

from repository import REPO_ROOT  # first: it makes benchcompare importable
from benchcompare.minimum_effects import (
    DEFAULT_MINIMUM_EFFECTS, MinimumEffect, minimum_effect_for, parse_minimum_effect, read_minimum_effects)


class DefaultsTest(unittest.TestCase):
    def test_per_family(self):
        expected = {
            "long_encoding/serial": 0.10,
            "pretokenization/regex": 0.10,
            "long_encoding/simd_parallel/real_time": 0.30,
            "encode_batch/serial/real_time": 0.30,
            "adversarial_encoding/digits/simd": 0.20,
            "adversarial_encoding/digits/parallel/real_time": 0.30,
        }
        for name, fraction in expected.items():
            with self.subTest(name=name):
                self.assertAlmostEqual(minimum_effect_for(name, DEFAULT_MINIMUM_EFFECTS), fraction)


class OverrideTest(unittest.TestCase):
    def test_later_rules_win(self):
        rules = DEFAULT_MINIMUM_EFFECTS + (parse_minimum_effect("long_encoding/*=5"),)
        self.assertAlmostEqual(minimum_effect_for("long_encoding/simd", rules), 0.05)
        self.assertAlmostEqual(minimum_effect_for("long_encoding/parallel/real_time", rules), 0.05)
        self.assertAlmostEqual(minimum_effect_for("medium_encoding/simd", rules), 0.10)

    def test_earlier_rule_loses_to_later_default_order(self):
        rules = (MinimumEffect("*/real_time", 40.0), MinimumEffect("*", 3.0))
        self.assertAlmostEqual(minimum_effect_for("x/parallel/real_time", rules), 0.03)

    def test_no_rule_matches(self):
        with self.assertRaises(ValueError):
            minimum_effect_for("x/simd", (MinimumEffect("long_*", 5.0),))


class ParseTest(unittest.TestCase):
    def test_pattern_and_percent(self):
        self.assertEqual(parse_minimum_effect("*/real_time=35"),
                         MinimumEffect("*/real_time", 35.0))
        self.assertEqual(parse_minimum_effect("long_*=2.5%").percent, 2.5)

    def test_pattern_may_hold_an_equals_sign(self):
        self.assertEqual(parse_minimum_effect("a=b=5").pattern, "a=b")

    def test_bad_rules(self):
        messages = {
            "long_encoding": "'long_encoding' is not PATTERN=PCT (e.g. 'long_encoding/*=5')",
            "=5": "'=5' is not PATTERN=PCT (e.g. 'long_encoding/*=5')",
            "x=fast": "'x=fast': 'fast' is not a number of percent",
            "x=-1": "'x=-1': the percentage must be a number of at least 0",
            "x=nan": "'x=nan': the percentage must be a number of at least 0",
        }
        for text, message in messages.items():
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as raised:
                    parse_minimum_effect(text)
                self.assertEqual(str(raised.exception), message)


class FileTest(unittest.TestCase):
    def write(self, text):
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        path = Path(directory.name) / "floors"
        path.write_text(text, encoding="utf-8")
        return path

    def test_rules_in_order_without_comments_and_blank_lines(self):
        path = self.write("# measured somewhere\n*=6\n\n  sdpa/*=9  \n# done\n")
        rules = read_minimum_effects(path)
        self.assertEqual([(rule.pattern, rule.percent) for rule in rules], [("*", 6.0), ("sdpa/*", 9.0)])
        self.assertAlmostEqual(minimum_effect_for("sdpa/flash/x", DEFAULT_MINIMUM_EFFECTS + rules), 0.09)

    def test_a_bad_rule_names_its_file_and_line(self):
        path = self.write("*=6\nx=fast\n")
        with self.assertRaises(ValueError) as raised:
            read_minimum_effects(path)
        self.assertEqual(str(raised.exception), f"{path}:2: 'x=fast': 'fast' is not a number of percent")

    def test_every_stored_file_reads(self):
        files = sorted((REPO_ROOT / "data" / "baselines").glob("*minimum_effects"))
        self.assertGreaterEqual(len(files), 3)
        for path in files:
            with self.subTest(path.name):
                self.assertTrue(read_minimum_effects(path))


if __name__ == "__main__":
    unittest.main()
