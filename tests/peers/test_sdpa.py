"""peerbench.sdpa: the names, flop counts and reference of the torch rows, and its variants' devices
and backends (with a stand-in for torch, which the tests do not need)."""

import math
import sys
import types
import unittest
from unittest import mock

import repository  # noqa: F401  (makes peerbench importable)
from peerbench.sdpa import (DECODE_SHAPES, SDPA_SHAPES, SDPA_VARIANTS, TorchSdpaPeer, decode_bytes, decode_flops,
                            decode_name, reference_sdpa, sdpa_flops, sdpa_name)
from peerbench.tables import speed, split_name


def fake_torch(cuda):
    """A module that answers what TorchSdpaPeer asks of torch at construction."""
    torch = types.ModuleType("torch")
    torch.__version__ = "0.test"
    torch.set_num_threads = lambda n: None
    torch.get_num_threads = lambda: 3
    torch.cuda = types.SimpleNamespace(is_available=lambda: cuda, get_device_name=lambda: "Test GPU")
    torch.backends = types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=True)),
                                           cudnn=types.SimpleNamespace(allow_tf32=True))
    return torch


class SdpaTest(unittest.TestCase):
    def test_names_and_flops_are_those_of_the_sdpa_family(self):
        self.assertEqual(sdpa_name(1024, 64, True), "sdpa/batch:4/heads:8/seq_q:1024/seq_k:1024/dim:64/causal:1")
        self.assertEqual(sdpa_flops(4, 8, 1024, 1024, 64, 64, False), 4 * 4 * 8 * 1024 * 1024 * 64)
        self.assertEqual(sdpa_flops(4, 8, 1024, 1024, 64, 64, True), 2 * 4 * 8 * 1024 * 1024 * 64)
        self.assertEqual(len(SDPA_SHAPES), 16)

    def test_the_reference_is_top_left_causal(self):
        q = [[[[1.0], [0.0]]]]
        k = [[[[1.0], [2.0], [0.0]]]]
        v = [[[[10.0], [20.0], [30.0]]]]
        out = reference_sdpa(q, k, v, causal=True)
        self.assertEqual(out[0][0][0], [10.0])  # query 0 sees key 0 alone
        self.assertEqual(out[0][0][1], [15.0])  # query 1: two equal scores of 0
        full = reference_sdpa(q, k, v, causal=False)[0][0][0][0]
        weights = [math.exp(1 - 2), 1.0, math.exp(0 - 2)]
        self.assertAlmostEqual(full, (10 * weights[0] + 20 * weights[1] + 30 * weights[2]) / sum(weights))

    def test_decode_names_flops_and_bytes_are_those_of_the_sdpa_decode_family(self):
        self.assertEqual(decode_name(8, 4, 65536),
                         "sdpa_decode/batch:8/heads:32/kv_heads:8/seq_q:4/seq_k:65536/dim:128")
        self.assertEqual(len(DECODE_SHAPES), 16)
        # One query sees every key: 32 heads x 4,096 keys x 256 multiply-adds x 2.
        self.assertEqual(decode_flops(1, 1, 4096), 32 * 4096 * 256 * 2)
        # Four queries see 4,093 to 4,096 keys (bottom-right).
        self.assertEqual(decode_flops(1, 4, 4096), 32 * (4093 + 4094 + 4095 + 4096) * 256 * 2)
        self.assertEqual(decode_bytes(1, 4096), 8 * 4096 * 256 * 4)
        self.assertEqual(decode_bytes(1, 4096, element_bytes=2), 8 * 4096 * 256 * 2)
        self.assertEqual(split_name("sdpa_decode/decode/batch:1/heads:32/kv_heads:8/seq_q:1/seq_k:1024/dim:128/real_time",
                                    ["torch"]),
                         ("sdpa_decode/batch:1/heads:32/kv_heads:8/seq_q:1/seq_k:1024/dim:128", "decode"))
        self.assertEqual(split_name("torch/sdpa_decode/batch:1/heads:32/kv_heads:8/seq_q:1/seq_k:1024/dim:128/real_time",
                                    ["torch"]),
                         ("sdpa_decode/batch:1/heads:32/kv_heads:8/seq_q:1/seq_k:1024/dim:128", "torch"))
        self.assertEqual(speed({"GFLOPS": 2.0, "GBps": 1.0}), (1.0, "GBps"))

    def test_the_reference_groups_heads_and_aligns_bottom_right(self):
        # Two query heads over one key/value head; two queries against three keys.
        q = [[[[1.0], [0.0]], [[0.0], [0.0]]]]
        k = [[[[1.0], [2.0], [0.0]]]]
        v = [[[[10.0], [20.0], [30.0]]]]
        out = reference_sdpa(q, k, v, causal=True, bottom_right=True)
        # Query 0 sees keys 0 and 1 (scores 1 and 2), query 1 all three (scores 0).
        self.assertAlmostEqual(out[0][0][0][0], (10 * math.exp(1 - 2) + 20) / (math.exp(1 - 2) + 1))
        self.assertAlmostEqual(out[0][0][1][0], 20.0)
        # The second head reads the same key/value head: zero queries weigh visible keys alike.
        self.assertAlmostEqual(out[0][1][0][0], 15.0)
        self.assertAlmostEqual(out[0][1][1][0], 20.0)

    def test_variants_run_where_they_say_and_the_gpu_ones_turn_tf32_off(self):
        self.assertEqual(SDPA_VARIANTS["torch"], ("cpu", "default", "float32"))
        torch = fake_torch(cuda=True)
        with mock.patch.dict(sys.modules, {"torch": torch}):
            cpu = TorchSdpaPeer(3)
            self.assertEqual((cpu.name, cpu.device), ("torch", "cpu"))
            self.assertEqual((cpu.ATOL, cpu.RTOL, cpu.element_bytes), (1e-5, 5e-6, 4))
            bf16 = TorchSdpaPeer(3, "torch_bf16")
            self.assertEqual((bf16.device, bf16.dtype_name, bf16.element_bytes), ("cpu", "bfloat16", 2))
            self.assertEqual((bf16.ATOL, bf16.RTOL), (5e-2, 5e-2))
            self.assertTrue(torch.backends.cuda.matmul.allow_tf32)
            math_path = TorchSdpaPeer(3, "torch_cuda_math")
            self.assertEqual((math_path.device, math_path.backend, math_path.gpu), ("cuda", "math", "Test GPU"))
            self.assertFalse(torch.backends.cuda.matmul.allow_tf32)
            self.assertFalse(torch.backends.cudnn.allow_tf32)
            self.assertEqual(TorchSdpaPeer(3, "torch_cuda").backend, "default")


if __name__ == "__main__":
    unittest.main()
