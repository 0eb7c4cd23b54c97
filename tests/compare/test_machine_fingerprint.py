"""Machine fingerprints: which context fields count, and how they are shown."""

import unittest

import repository  # noqa: F401  (makes benchcompare importable)
from benchcompare.machine_fingerprint import describe_value, fingerprint_differences
from golden_files import read_golden


class FingerprintTest(unittest.TestCase):
    def setUp(self):
        self.context = read_golden("baseline.json")["context"]

    def changed(self, **fields):
        return dict(self.context, **fields)

    def test_same_machine_despite_host_date_and_load(self):
        other = self.changed(host_name="other", date="2027-01-01T00:00:00+00:00",
                             load_avg=[9.0, 9.0, 9.0], git_commit="0123abc")
        self.assertEqual(fingerprint_differences(self.context, other), [])

    def test_differing_fields_in_fingerprint_order(self):
        other = self.changed(simd_isa="avx512", num_cpus=16)
        differences = fingerprint_differences(self.context, other)
        self.assertEqual([(d.field, d.baseline, d.current) for d in differences],
                         [("num_cpus", 2, 16), ("simd_isa", "avx2", "avx512")])

    def test_cpu_model_compared_only_when_both_have_it(self):
        newer = self.changed(cpu_model="AMD EPYC 7B13")
        self.assertEqual(fingerprint_differences(self.context, newer), [])
        other_cpu = self.changed(cpu_model="Intel Xeon Platinum 8481C")
        self.assertEqual([d.field for d in fingerprint_differences(newer, other_cpu)],
                         ["cpu_model"])

    def test_caches_described_in_one_line(self):
        self.assertEqual(describe_value("caches", self.context["caches"]),
                         "L1 Data 32 KiB, L1 Instruction 32 KiB, L2 Unified 512 KiB, "
                         "L3 Unified 32 MiB (shared by 2)")
        self.assertEqual(describe_value("num_cpus", 2), "2")


if __name__ == "__main__":
    unittest.main()
