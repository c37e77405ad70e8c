"""Model of tests/oracle/kernels/global_views.py: numpy's row-major reshape
into groups of 16, the largest magnitude per group, the binary32 quotient."""

import numpy as np

from oracle_lib import F32, distinct_floats

DEFAULTS = dict(M=8, N=64)


def inputs(rng, p):
    return {"X": distinct_floats(rng, (p["M"], p["N"]), "float32")}


def expected(ins, p):
    x = ins["X"].astype(F32)
    g = x.reshape(-1, 16)
    s = np.abs(g).max(axis=1).astype(F32)
    y = (g / s[:, None]).astype(F32)
    return {"S": s.reshape(p["M"], p["N"] // 16), "Y": y.reshape(p["M"], p["N"])}
