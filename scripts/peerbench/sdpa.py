"""PyTorch's SDPA on the shapes of our sdpa and sdpa_decode families, checked against a float64
reference."""

import math

# The shapes of benches/sdpa_bench_inputs.hpp. The inputs are drawn by torch's own generator, not
# our bytes: the time of SDPA does not depend on the values, only on their being finite.
SDPA_BATCH = 4
SDPA_HEADS = 8
SDPA_SEQ_LENGTHS = [128, 512, 1024, 4096]
SDPA_HEAD_DIMS = [64, 128]
# (seq, dim, causal): seq_q = seq_k = seq, head and value dimension dim; causal is top-left.
SDPA_SHAPES = [(seq, dim, causal) for seq in SDPA_SEQ_LENGTHS for dim in SDPA_HEAD_DIMS for causal in (False, True)]


# The decode shapes of benches/sdpa_bench_inputs.hpp: (batch, seq_q, seq_k), DECODE_HEADS query
# heads over DECODE_KV_HEADS key/value heads, head and value dimension DECODE_DIM, bottom-right
# causal alignment (query i sees keys 0..i + seq_k - seq_q, the KV-cache convention).
DECODE_BATCHES = [1, 8]
DECODE_QUERIES = [1, 4]
DECODE_KEYS = [1024, 4096, 16384, 65536]
DECODE_HEADS, DECODE_KV_HEADS, DECODE_DIM = 32, 8, 128
DECODE_SHAPES = [(batch, seq_q, seq_k) for batch in DECODE_BATCHES for seq_q in DECODE_QUERIES for seq_k in DECODE_KEYS]


def decode_name(batch, seq_q, seq_k):
    return (f"sdpa_decode/batch:{batch}/heads:{DECODE_HEADS}/kv_heads:{DECODE_KV_HEADS}/seq_q:{seq_q}"
            f"/seq_k:{seq_k}/dim:{DECODE_DIM}")


def decode_flops(batch, seq_q, seq_k):
    """The flops of exactly the keys each query sees (seq_k - seq_q + 1 + i for query i), two per
    multiply-add of Q Kᵀ and P V, as benches/sdpa_bench_inputs.hpp's set_decode_counters."""
    visible = sum(seq_k - seq_q + 1 + i for i in range(seq_q))
    return 2 * batch * DECODE_HEADS * 2 * DECODE_DIM * visible


def decode_bytes(batch, seq_k, element_bytes=4):
    """The bytes of K and V (float32 unless ELEMENT_BYTES says otherwise): what a call must read
    at least once."""
    return batch * DECODE_KV_HEADS * seq_k * 2 * DECODE_DIM * element_bytes


def sdpa_name(seq, dim, causal):
    return (f"sdpa/batch:{SDPA_BATCH}/heads:{SDPA_HEADS}/seq_q:{seq}/seq_k:{seq}/dim:{dim}"
            f"/causal:{int(causal)}")


def sdpa_flops(batch, heads, seq_q, seq_k, dim, value_dim, causal):
    """FlashAttention's count, as benches/sdpa_bench_inputs.hpp: Q Kᵀ and P V at two flops per
    multiply-add, the softmax not counted, half of it for causal."""
    flops = 2 * batch * heads * seq_q * seq_k * (dim + value_dim)
    return flops / 2 if causal else flops


def reference_sdpa(q, k, v, causal, bottom_right=False):
    """O = softmax(Q Kᵀ / sqrt(dim)) V in float64, from nested lists [batch][head][row][column];
    query head h reads key/value head h // (heads / kv_heads). causal is top-left (query i sees
    keys 0..i), or with bottom_right, bottom-right (keys 0..i + seq_k - seq_q)."""
    out = []
    for qb, kb, vb in zip(q, k, v):
        out_b = []
        for h, qh in enumerate(qb):
            kh, vh = kb[h * len(kb) // len(qb)], vb[h * len(vb) // len(qb)]
            scale = 1 / math.sqrt(len(qh[0]))
            shift = len(kh) - len(qh) if bottom_right else 0
            out_h = []
            for i, query in enumerate(qh):
                visible = range(max(0, min(i + 1 + shift, len(kh)))) if causal else range(len(kh))
                scores = [scale * sum(x * y for x, y in zip(query, kh[j])) for j in visible]
                top = max(scores)
                weights = [math.exp(score - top) for score in scores]
                total = sum(weights)
                out_h.append([sum(w * vh[j][c] for w, j in zip(weights, visible)) / total
                              for c in range(len(vh[0]))])
            out_b.append(out_h)
        out.append(out_b)
    return out


# The variants of torch's SDPA measured: name -> (device, backend, dtype). "default" lets torch
# choose (on CUDA in float32, the memory-efficient kernel); "math" is its unfused composition of
# matrix products and softmax, with TF32 off, the plain float32 yardstick on a GPU. torch_bf16
# stands beside our *_bf16 implementations: Q, K and V in bfloat16 (torch's CPU kernels compute
# the softmax in float32 and round P and O to bfloat16).
SDPA_VARIANTS = {"torch": ("cpu", "default", "float32"), "torch_bf16": ("cpu", "default", "bfloat16"),
                 "torch_cuda": ("cuda", "default", "float32"), "torch_cuda_math": ("cuda", "math", "float32")}
# The tolerances of the check, per dtype: float32's as our implementations against `reference`
# (attention/implementation_registry.hpp); bfloat16's the outer bound of PyTorch's own tests.
CHECK_TOLERANCES = {"float32": (1e-5, 5e-6), "bfloat16": (5e-2, 5e-2)}
# The bytes of an element of each dtype: what decoding's GB/s count K and V in.
ELEMENT_BYTES = {"float32": 4, "bfloat16": 2}


def import_torch():
    import warnings
    # torch warns at import when numpy is missing; it needs numpy for nothing done here.
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    import torch
    return torch


class TorchSdpaPeer:
    # The shape of the check: seq_q < seq_k, where top-left and bottom-right causal masks differ.
    CHECK_SHAPE = (1, 2, 3, 5, 4)  # batch, heads, seq_q, seq_k, dim
    # The shape of the check of decoding: grouped heads, bottom-right.
    CHECK_DECODE_SHAPE = (1, 4, 2, 3, 5, 4)  # batch, heads, kv_heads, seq_q, seq_k, dim

    def __init__(self, threads, name="torch"):
        torch = import_torch()
        torch.set_num_threads(threads)
        self.name = name
        self.device, self.backend, self.dtype_name = SDPA_VARIANTS[name]
        self.ATOL, self.RTOL = CHECK_TOLERANCES[self.dtype_name]
        self.element_bytes = ELEMENT_BYTES[self.dtype_name]
        self.torch = torch
        self.version = torch.__version__
        self.threads = torch.get_num_threads()
        if self.device == "cuda":
            # float32 means float32: no TF32 in the matrix products of the math path.
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
            self.gpu = torch.cuda.get_device_name()

    def attention(self, causal):
        return self._call(is_causal=causal)

    def decode_attention(self, seq_q, seq_k):
        """SDPA with grouped heads and a bottom-right causal mask (none for one query, which sees
        every key): torch's is_causal is top-left."""
        if seq_q == 1:
            return self._call(enable_gqa=True)
        visible = self.torch.ones(seq_q, seq_k, dtype=self.torch.bool).tril(seq_k - seq_q).to(self.device)
        return self._call(enable_gqa=True, attn_mask=visible)

    def _call(self, **options):
        torch = self.torch
        sdpa = torch.nn.functional.scaled_dot_product_attention
        if self.device == "cpu":
            return lambda qkv: sdpa(*qkv, **options)
        from contextlib import nullcontext

        from torch.nn.attention import SDPBackend, sdpa_kernel

        # Each call waits for the GPU, so that the wall clock times the kernels.
        def run(qkv):
            with sdpa_kernel([SDPBackend.MATH]) if self.backend == "math" else nullcontext():
                out = sdpa(*qkv, **options)
            torch.cuda.synchronize()
            return out
        return run

    def inputs(self, batch, heads, seq_q, seq_k, dim, seed=1, kv_heads=None):
        """Q, K and V drawn in float32, then rounded to the variant's dtype."""
        gen = self.torch.Generator().manual_seed(seed)
        dtype = getattr(self.torch, self.dtype_name)
        return tuple(self.torch.randn(batch, count, seq, dim, generator=gen, dtype=self.torch.float32)
                     .to(dtype).to(self.device)
                     for count, seq in ((heads, seq_q), (kv_heads or heads, seq_k), (kv_heads or heads, seq_k)))

    def check(self):
        """None if torch's output equals the float64 reference (of the inputs as rounded to the
        variant's dtype) within ATOL + RTOL * |reference| on CHECK_SHAPE, without and with
        is_causal; else why not."""
        qkv = self.inputs(*self.CHECK_SHAPE)
        batch, heads, kv_heads, seq_q, seq_k, dim = self.CHECK_DECODE_SHAPE
        decode_qkv = self.inputs(batch, heads, seq_q, seq_k, dim, kv_heads=kv_heads)
        cases = [(f"is_causal={causal}", self.attention(causal), qkv, {"causal": causal}) for causal in (False, True)]
        cases.append(("grouped heads, bottom-right mask", self.decode_attention(seq_q, seq_k), decode_qkv,
                      {"causal": True, "bottom_right": True}))
        for label, attention, inputs, alignment in cases:
            with self.torch.inference_mode():
                got = attention(inputs).float().flatten().cpu().tolist()
            lists = [t.float().cpu().tolist() for t in inputs]
            want = [x for b in reference_sdpa(*lists, **alignment) for h in b for row in h for x in row]
            worst = max(abs(g - w) - self.RTOL * abs(w) for g, w in zip(got, want))
            if worst > self.ATOL:
                return f"{label}: off by {worst:.3g} beyond {self.RTOL} x |reference|"
        return None

    def describe_check(self):
        batch, heads, seq_q, seq_k, dim = self.CHECK_SHAPE
        _, decode_heads, kv_heads, decode_q, decode_k, _ = self.CHECK_DECODE_SHAPE
        return (f"{self.name}'s SDPA ({self.dtype_name}) equals a float64 reference within {self.ATOL} + "
                f"{self.RTOL} x |value| on "
                f"batch {batch}, heads {heads}, seq_q {seq_q}, seq_k {seq_k}, dim {dim}, without and with "
                f"is_causal (top-left), and with {decode_heads} heads over {kv_heads} (enable_gqa), seq_q "
                f"{decode_q}, seq_k {decode_k} and a bottom-right mask, as the decode shapes run")
