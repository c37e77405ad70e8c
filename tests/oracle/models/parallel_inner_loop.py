"""Model of tests/oracle/kernels/parallel_inner_loop.py: per element, the
product C*D, then the products A*B added in k order, every operation rounded
to binary32 (no fused multiply-add); R adds B[3] then B[1] to 0.0."""

import numpy as np

from oracle_lib import F32, distinct_floats

DEFAULTS = dict(batch=2, mhc=4, hidden=64)


def inputs(rng, p):
    b, m, h = p["batch"], p["mhc"], p["hidden"]
    return {"A": distinct_floats(rng, (b, m, m), "float32"),
            "B": distinct_floats(rng, (b, m, h), "float32"),
            "C": distinct_floats(rng, (b, m), "float32"),
            "D": distinct_floats(rng, (b, h), "float32")}


def expected(ins, p):
    a, b, c, d = (ins[n].astype(F32) for n in "ABCD")
    x = (c[:, :, None] * d[:, None, :]).astype(F32)
    for k in range(p["mhc"]):
        x = (x + (a[:, k, :, None] * b[:, k, None, :]).astype(F32)).astype(F32)
    r = np.zeros((p["batch"], p["hidden"]), dtype=F32)
    for k in (3, 1):
        r = (r + b[:, k, :]).astype(F32)
    return {"X": x, "R": r}
