"""Model of tests/oracle/kernels/simd_intrinsics.py, lane by lane in numpy:
each vector operator in binary32 (float16 lanes rounded to float16 after each
operator), masked lanes zero, masked stores leave the other elements alone."""

import numpy as np

from oracle_lib import F32, distinct_floats, load, rounded, store

DEFAULTS = dict()


def inputs(rng, p):
    return {
        "X": distinct_floats(rng, (4, 64), "float32"),
        "Y": distinct_floats(rng, (4, 64), "float32"),
        "H": distinct_floats(rng, (128,), "float16", lo=0.25, hi=8.0),
    }


def expected(ins, p):
    x = load(ins["X"], "float32")
    y = load(ins["Y"], "float32")
    h = load(ins["H"], "float16")
    o = np.maximum(x * y, x + F32(0.5)) / F32(4.0)
    acc = np.zeros(64, dtype=F32)
    for r in range(4):
        acc = (acc + np.abs(x[r])).astype(F32)
    pout = np.full((4, 64), -1.0, dtype=F32)
    for r in range(4):
        for lane in range(16):
            pout[r, lane] = -y[r, lane] if lane < 16 * r + 8 else F32(0.0)
    g = np.zeros(128, dtype=F32)
    doubled = rounded(h * F32(2.0), "float16")
    g[:32] = np.maximum(doubled[:32], F32(0.0))
    return {
        "O": store(o, "float32"),
        "S": store(acc, "float32"),
        "P": store(pout, "float32"),
        "G": store(g, "float16"),
    }
