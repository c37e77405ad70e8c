"""Model of tests/oracle/kernels/host_helpers_spellings.py.

tile = next_power_of_2(want) = 512, n_tiles = ceil(N / tile), padded = n_tiles * tile.
Y[i] = (A[i] + B[i]) * 0.5 + float(trunc(A[i] * 4))     (the int32 cast truncates toward 0)
S[t, 0] = sum over the t-th tile of A[i] * B[i]
Inputs are multiples of 1/8 in [-2, 2): every product is a multiple of 1/64 of
magnitude at most 4 and every partial sum of 512 of them is exact in binary32,
so the sum does not depend on the kernel's reduction order.
"""

import math

import numpy as np

from oracle_lib import F32

DEFAULTS = dict(N=3000, want=300, dtype="float32")


def _sizes(p):
    tile = 1 << (p["want"] - 1).bit_length()
    n_tiles = math.ceil(p["N"] / tile)
    return tile, n_tiles


def inputs(rng, p):
    tile, n_tiles = _sizes(p)
    shape = (n_tiles * tile,)
    eighths = lambda: (rng.integers(-16, 16, size=shape) / 8.0).astype(F32)
    return {"A": eighths(), "B": eighths()}


def expected(ins, p):
    tile, n_tiles = _sizes(p)
    a, b = ins["A"].astype(F32), ins["B"].astype(F32)
    y = (a + b) * F32(0.5) + np.trunc(a * F32(4.0)).astype(F32)
    s = (a.astype(np.float64) * b).reshape(n_tiles, tile).sum(axis=1).astype(F32)
    return {"Y": y.astype(F32), "S": s.reshape(n_tiles, 1)}
