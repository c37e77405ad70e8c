"""Model of tests/oracle/kernels/gemm_constant_tails.py: C = A @ B^T in the
top-left M x N corner of a 16 x 16 accumulator, zeros elsewhere (the tiles'
padding is zero), binary32 accumulation over k in increasing order."""

import numpy as np

from oracle_lib import distinct_floats, gemm, load, store

DEFAULTS = dict(M=15, N=13, K=47)


def inputs(rng, p):
    return {
        "A": distinct_floats(rng, (p["M"], p["K"]), "float16", lo=1.0 / 256, hi=4.0),
        "B": distinct_floats(rng, (p["N"], p["K"]), "float16", lo=1.0 / 256, hi=4.0),
    }


def expected(ins, p):
    a = load(ins["A"], "float16")
    b = load(ins["B"], "float16")
    c = np.zeros((16, 16), dtype=np.float32)
    c[: p["M"], : p["N"]] = gemm(a, b.T)
    return {"C": store(c, "float32")}
