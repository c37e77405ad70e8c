"""Model of tests/oracle/kernels/atomic_return_prev.py: the updates in block
order, then thread order; each returns the element before it."""

import numpy as np

from oracle_lib import F32

DEFAULTS = dict(blocks=4, threads=16)


def inputs(rng, p):
    n = p["blocks"] * p["threads"]
    return {"C": rng.integers(-50, 50, size=(4,)).astype(np.int32),
            "Q": (rng.integers(-40, 80, size=(4,)) * 0.5).astype(F32),
            "P": np.zeros((n,), dtype=np.int32),
            "M": np.zeros((n,), dtype=F32)}


def expected(ins, p):
    c = ins["C"].astype(np.int64).copy()
    q = ins["Q"].astype(F32).copy()
    n = p["blocks"] * p["threads"]
    out_p = np.zeros((n,), dtype=np.int32)
    out_m = np.zeros((n,), dtype=F32)
    for b in range(p["blocks"]):
        for t in range(p["threads"]):
            k = t % 4
            out_p[b * p["threads"] + t] = c[k]
            c[k] += t + 1
            out_m[b * p["threads"] + t] = q[k]
            q[k] = max(q[k], F32(b * p["threads"] + t))
    return {"C": c.astype(np.int32), "Q": q, "P": out_p, "M": out_m}
