"""Model of examples/gemm_l1.py: C = A @ B, A: M x K, B: K x N (`dtype`),
C: M x N (`accum_dtype`, float32).

The K slices of the pipelined loop accumulate into one L0C tile cleared at the
first slice, so every C[m, n] is one binary32 fold over k = 0, 1, ..., K - 1
of A[m, k] * B[k, n] (SPEC §1.6), starting from 0.
"""

from oracle_lib import distinct_floats, gemm, load, store

DEFAULTS = dict(M=128, N=128, K=128, block_M=64, block_N=64, block_K=32, dtype="float16", accum_dtype="float32")


def inputs(rng, p):
    # Magnitudes over many binades make the accumulation order visible.
    return {
        "A": distinct_floats(rng, (p["M"], p["K"]), p["dtype"], lo=1.0 / 256, hi=4.0),
        "B": distinct_floats(rng, (p["K"], p["N"]), p["dtype"], lo=1.0 / 256, hi=4.0),
    }


def expected(ins, p):
    dtype = p["dtype"]
    return {"C": store(gemm(load(ins["A"], dtype), load(ins["B"], dtype)), p["accum_dtype"])}
