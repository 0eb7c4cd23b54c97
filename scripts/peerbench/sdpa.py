"""PyTorch's SDPA on the shapes of our sdpa family, checked against a float64 reference."""

import math

# The shapes of benches/sdpa_bench_inputs.hpp. The inputs are drawn by torch's own generator, not
# our bytes: the time of SDPA does not depend on the values, only on their being finite.
SDPA_BATCH = 4
SDPA_HEADS = 8
SDPA_SEQ_LENGTHS = [128, 512, 1024, 4096]
SDPA_HEAD_DIMS = [64, 128]
# (seq, dim, causal): seq_q = seq_k = seq, head and value dimension dim; causal is top-left.
SDPA_SHAPES = [(seq, dim, causal) for seq in SDPA_SEQ_LENGTHS for dim in SDPA_HEAD_DIMS for causal in (False, True)]


def sdpa_name(seq, dim, causal):
    return (f"sdpa/batch:{SDPA_BATCH}/heads:{SDPA_HEADS}/seq_q:{seq}/seq_k:{seq}/dim:{dim}"
            f"/causal:{int(causal)}")


def sdpa_flops(batch, heads, seq_q, seq_k, dim, value_dim, causal):
    """FlashAttention's count, as benches/sdpa_bench_inputs.hpp: Q Kᵀ and P V at two flops per
    multiply-add, the softmax not counted, half of it for causal."""
    flops = 2 * batch * heads * seq_q * seq_k * (dim + value_dim)
    return flops / 2 if causal else flops


def reference_sdpa(q, k, v, causal):
    """O = softmax(Q Kᵀ / sqrt(dim)) V in float64, from nested lists [batch][head][row][column];
    causal is top-left: query i sees keys 0..i."""
    out = []
    for qb, kb, vb in zip(q, k, v):
        out_b = []
        for qh, kh, vh in zip(qb, kb, vb):
            scale = 1 / math.sqrt(len(qh[0]))
            out_h = []
            for i, query in enumerate(qh):
                visible = range(min(i + 1, len(kh))) if causal else range(len(kh))
                scores = [scale * sum(x * y for x, y in zip(query, kh[j])) for j in visible]
                top = max(scores)
                weights = [math.exp(score - top) for score in scores]
                total = sum(weights)
                out_h.append([sum(w * vh[j][c] for w, j in zip(weights, visible)) / total
                              for c in range(len(vh[0]))])
            out_b.append(out_h)
        out.append(out_b)
    return out


# The variants of torch's SDPA measured: name -> (device, backend). "default" lets torch choose (on
# CUDA in float32, the memory-efficient kernel); "math" is its unfused composition of matrix
# products and softmax, with TF32 off, the plain float32 yardstick on a GPU.
SDPA_VARIANTS = {"torch": ("cpu", "default"), "torch_cuda": ("cuda", "default"),
                 "torch_cuda_math": ("cuda", "math")}


def import_torch():
    import warnings
    # torch warns at import when numpy is missing; it needs numpy for nothing done here.
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    import torch
    return torch


class TorchSdpaPeer:
    # The shape of the check: seq_q < seq_k, where top-left and bottom-right causal masks differ.
    CHECK_SHAPE = (1, 2, 3, 5, 4)  # batch, heads, seq_q, seq_k, dim
    # As our implementations against `reference` (attention/implementation_registry.hpp).
    ATOL, RTOL = 1e-5, 5e-6

    def __init__(self, threads, name="torch"):
        torch = import_torch()
        torch.set_num_threads(threads)
        self.name = name
        self.device, self.backend = SDPA_VARIANTS[name]
        self.torch = torch
        self.version = torch.__version__
        self.threads = torch.get_num_threads()
        if self.device == "cuda":
            # float32 means float32: no TF32 in the matrix products of the math path.
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
            self.gpu = torch.cuda.get_device_name()

    def attention(self, causal):
        torch = self.torch
        sdpa = torch.nn.functional.scaled_dot_product_attention
        if self.device == "cpu":
            return lambda qkv: sdpa(*qkv, is_causal=causal)
        from contextlib import nullcontext

        from torch.nn.attention import SDPBackend, sdpa_kernel

        # Each call waits for the GPU, so that the wall clock times the kernels.
        def run(qkv):
            with sdpa_kernel([SDPBackend.MATH]) if self.backend == "math" else nullcontext():
                out = sdpa(*qkv, is_causal=causal)
            torch.cuda.synchronize()
            return out
        return run

    def inputs(self, batch, heads, seq_q, seq_k, dim, seed=1):
        gen = self.torch.Generator().manual_seed(seed)
        return tuple(self.torch.randn(batch, heads, seq, dim, generator=gen, dtype=self.torch.float32).to(self.device)
                     for seq in (seq_q, seq_k, seq_k))

    def check(self):
        """None if torch's output equals the float64 reference within ATOL + RTOL * |reference| on
        CHECK_SHAPE, without and with is_causal; else why not."""
        qkv = self.inputs(*self.CHECK_SHAPE)
        lists = [t.cpu().tolist() for t in qkv]
        for causal in (False, True):
            with self.torch.inference_mode():
                got = self.attention(causal)(qkv).flatten().cpu().tolist()
            want = [x for b in reference_sdpa(*lists, causal) for h in b for row in h for x in row]
            worst = max(abs(g - w) - self.RTOL * abs(w) for g, w in zip(got, want))
            if worst > self.ATOL:
                return f"is_causal={causal}: off by {worst:.3g} beyond {self.RTOL} x |reference|"
        return None

    def describe_check(self):
        batch, heads, seq_q, seq_k, dim = self.CHECK_SHAPE
        return (f"{self.name}'s SDPA equals a float64 reference within {self.ATOL} + {self.RTOL} x |value| on "
                f"batch {batch}, heads {heads}, seq_q {seq_q}, seq_k {seq_k}, dim {dim}, without and with "
                f"is_causal (top-left)")
