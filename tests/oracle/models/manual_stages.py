"""Model of tests/oracle/kernels/manual_stages.py in numpy (binary32 after
every operation)."""

import numpy as np

from oracle_lib import F32, distinct_floats, load, store

DEFAULTS = dict()
TILE, TILES, BLOCKS = 256, 6, 2


def inputs(rng, p):
    n = BLOCKS * TILES * TILE
    return {"A": distinct_floats(rng, (n,), "float32"), "B": distinct_floats(rng, (n,), "float32")}


def expected(ins, p):
    a = load(ins["A"], "float32")
    b = load(ins["B"], "float32")
    c = np.empty_like(a)
    for blk in range(BLOCKS):
        for tile in range(TILES):
            s = slice((blk * TILES + tile) * TILE, (blk * TILES + tile + 1) * TILE)
            x, y = (a[s], b[s]) if tile % 2 == 0 else (b[s], a[s])
            if tile % 3 == 0:
                c[s] = ((x * F32(2)).astype(F32) + y).astype(F32)
            else:
                c[s] = (x - y).astype(F32)
    return {"C": store(c, "float32")}
