"""Model of tests/oracle/kernels/simd_permute.py in numpy (binary32 lanes,
expf from the C library as oracle_lib pins it)."""

import numpy as np

from oracle_lib import F32, distinct_floats, expf, load, store

DEFAULTS = dict()


def inputs(rng, p):
    return {
        "X": distinct_floats(rng, (64,), "float32", lo=0.25, hi=2.0),
        "Y": distinct_floats(rng, (64,), "float32", lo=0.25, hi=2.0),
    }


def expected(ins, p):
    x = load(ins["X"], "float32")
    y = load(ins["Y"], "float32")
    both = np.empty(128, dtype=F32)
    both[0::2] = x
    both[1::2] = y
    d = np.abs(x - y)
    e = expf(x - y)
    lr = np.where(x >= 0, x, (F32(0.25) * x).astype(F32))
    return {
        "I0": store(both[:64], "float32"),
        "I1": store(both[64:], "float32"),
        "R0": store(x, "float32"),
        "R1": store(y, "float32"),
        "D": store(d, "float32"),
        "E": store(e, "float32"),
        "L": store(lr, "float32"),
    }
