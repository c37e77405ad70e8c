"""Model of tests/oracle/kernels/while_loops.py in numpy, binary32 after every
operation (k = 3 from the input)."""

import numpy as np

from oracle_lib import F32, distinct_floats, load, store

DEFAULTS = dict()
TILE, TILES, BLOCKS = 128, 4, 2


def inputs(rng, p):
    return {
        "A": distinct_floats(rng, (BLOCKS * TILES * TILE,), "float32"),
        "K": np.array([3], dtype=np.int32),
    }


def expected(ins, p):
    a = load(ins["A"], "float32")
    k = int(ins["K"][0])
    c = a.copy()
    for r in range(1, k + 1):
        c = (c + F32(r)).astype(F32)
    d = np.concatenate([a[b * TILE : (b + 1) * TILE] for b in range(BLOCKS)])
    for u in (5, 3, 1):
        d = ((d * F32(2)).astype(F32) + F32(u)).astype(F32)
    return {"C": store(c, "float32"), "D": store(d, "float32")}
