"""Model of tests/oracle/kernels/tail_pad.py: numpy binary32, the tail padded
with A = 0.0 and B = 1.0 as pad_value= says, the sum folded in index order."""

import numpy as np

from oracle_lib import F32, distinct_floats, reduce_sum

DEFAULTS = dict(N=3000, sub=1024, dtype="float32")


def inputs(rng, p):
    n = p["N"]
    return {"A": distinct_floats(rng, (n,), "float32"), "B": distinct_floats(rng, (n,), "float32")}


def expected(ins, p):
    n, sub = p["N"], p["sub"]
    tiles = (n + sub - 1) // sub
    a = np.zeros(tiles * sub, dtype=F32)
    b = np.ones(tiles * sub, dtype=F32)
    a[:n], b[:n] = ins["A"], ins["B"]
    c = (a * F32(2.0) + b).astype(F32)
    s = np.array([reduce_sum(c[t * sub:(t + 1) * sub]) for t in range(tiles)], dtype=F32)
    return {"C": c[:n], "S": s}
