"""Model of examples/manual_flat_ring.py: causal two-tap moving average,
Y[b, l, :] = (X[b, l, :] + X[b, l - 1, :]) * 0.5 with X[b, -1, :] = 0.

The three-slot ring is zeroed before the loop, so the first tile of every
sequence is averaged with zeros. Each operator in binary32, rounded to `dtype`.
"""

import numpy as np
from oracle_lib import F32, distinct_floats, load, rounded, store

DEFAULTS = dict(B=4, L=16, TILE=256, dtype="float32")


def inputs(rng, p):
    return {"X": distinct_floats(rng, (p["B"], p["L"], p["TILE"]), p["dtype"])}


def expected(ins, p):
    dtype = p["dtype"]
    x = load(ins["X"], dtype)
    previous = np.zeros_like(x)
    previous[:, 1:, :] = x[:, :-1, :]
    total = rounded(x + previous, dtype)
    return {"Y": store(total * F32(0.5), dtype)}
