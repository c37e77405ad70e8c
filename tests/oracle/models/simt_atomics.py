"""Model of tests/oracle/kernels/simt_atomics.py: the updates of block 0's
threads 0, 1, ..., then block 1's, ..., each in binary32 (int32 for H)."""

import numpy as np
from oracle_lib import F32, distinct_floats

DEFAULTS = dict(num_blocks=4, threads=64)


def inputs(rng, p):
    return {
        "S": distinct_floats(rng, (3,), "float32"),
        "H": rng.integers(-5, 5, size=(4,)).astype(np.int32),
    }


def expected(ins, p):
    s = ins["S"].astype(F32).copy()
    h = ins["H"].astype(np.int32).copy()
    for bx in range(p["num_blocks"]):
        for tx in range(p["threads"]):
            v = F32(bx * p["threads"] + tx)
            s[0] = F32(s[0] + F32(v * F32(0.5) + F32(0.25)))
            h[tx % 4] += 1
        for tx in range(p["threads"]):
            s[1] = max(s[1], F32(bx * p["threads"] + tx))
        for tx in range(p["threads"]):
            s[2] = min(s[2], F32(-(bx * p["threads"] + tx)))
    return {"S": s, "H": h}
