"""Model of examples/gemm_l0.py: C = A @ B^T, A: M x K, B: N x K (`dtype`),
C: M x N (`accum_dtype`, float32).

The outer K slices and the inner sub-K slices all accumulate into one L0C tile
cleared at (k == 0 and sk == 0), so every C[m, n] is one binary32 fold over
k = 0, 1, ..., K - 1 of A[m, k] * B[n, k], starting from 0. The trip through
UB on the way out does not change the float32 values.
"""

import numpy as np
from oracle_lib import distinct_floats, gemm

DEFAULTS = dict(M=128, N=64, K=256, block_M=64, block_N=64, block_K=64, sub_K=32, dtype="float16",
                accum_dtype="float32")


def inputs(rng, p):
    dtype = np.dtype(p["dtype"])
    return {
        "A": distinct_floats(rng, (p["M"], p["K"]), dtype, lo=1.0 / 256, hi=4.0),
        "B": distinct_floats(rng, (p["N"], p["K"]), dtype, lo=1.0 / 256, hi=4.0),
    }


def expected(ins, p):
    return {"C": gemm(ins["A"], ins["B"].T).astype(np.dtype(p["accum_dtype"]))}
