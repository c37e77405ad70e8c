"""Model of tests/oracle/kernels/mixed_kernel_epilogue.py: a binary32 GEMM
(k in increasing order), times 2, plus 0 (the only sub-core index), plus 1,
each step rounded to binary32."""

import numpy as np

from oracle_lib import distinct_floats, gemm, load, store

DEFAULTS = dict(M=128, N=64, K=64)


def inputs(rng, p):
    return {
        "A": distinct_floats(rng, (p["M"], p["K"]), "float16", lo=1.0 / 256, hi=4.0),
        "B": distinct_floats(rng, (p["N"], p["K"]), "float16", lo=1.0 / 256, hi=4.0),
    }


def expected(ins, p):
    c = gemm(load(ins["A"], "float16"), load(ins["B"], "float16").T)
    c = (c * np.float32(2.0) + np.float32(0.0)) + np.float32(1.0)
    return {"C": store(c, "float32")}
