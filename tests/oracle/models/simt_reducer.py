"""Model of tests/oracle/kernels/simt_reducer.py. Every operator in binary32:
S[r] = fold of x*x in increasing j from 0; M[r] = fold of max from -inf;
scale = 1 / (S / N + eps) with N and eps rounded to float32;
Y = x * scale - M."""

import numpy as np
from oracle_lib import F32, distinct_floats, fold, reduce_sum

DEFAULTS = dict(rows=32, N=256, eps=1e-5)


def inputs(rng, p):
    return {"X": distinct_floats(rng, (p["rows"], p["N"]), "float32")}


def expected(ins, p):
    x = ins["X"].astype(F32)
    s = reduce_sum(x * x, axis=-1)
    m = fold(x, -1, np.maximum, -np.inf)
    scale = F32(1.0) / (s / F32(p["N"]) + F32(p["eps"]))
    y = x * scale[:, None] - m[:, None]
    return {"Y": y.astype(F32), "S": s.astype(F32), "M": m.astype(F32)}
