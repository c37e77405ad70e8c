"""Model of examples/gemm_l0.py: C = A @ B^T, A: M x K, B: N x K (`dtype`),
C: M x N (`accum_dtype`, float32).

The outer K slices and the inner sub-K slices all accumulate into one L0C tile
cleared at (k == 0 and sk == 0), so every C[m, n] is one binary32 fold over
k = 0, 1, ..., K - 1 of A[m, k] * B[n, k], starting from 0. The trip through
UB on the way out does not change the float32 values.
"""

from oracle_lib import distinct_floats, gemm, load, store

DEFAULTS = dict(M=128, N=64, K=256, block_M=64, block_N=64, block_K=64, sub_K=32, dtype="float16",
                accum_dtype="float32")


def inputs(rng, p):
    return {
        "A": distinct_floats(rng, (p["M"], p["K"]), p["dtype"], lo=1.0 / 256, hi=4.0),
        "B": distinct_floats(rng, (p["N"], p["K"]), p["dtype"], lo=1.0 / 256, hi=4.0),
    }


def expected(ins, p):
    dtype = p["dtype"]
    return {"C": store(gemm(load(ins["A"], dtype), load(ins["B"], dtype).T), p["accum_dtype"])}
