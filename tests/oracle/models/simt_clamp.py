"""Model of tests/oracle/kernels/simt_clamp.py: numpy's clip of the binary32
quotient, and of the truncated (toward zero) int32 product."""

import numpy as np

from oracle_lib import F32, distinct_floats

DEFAULTS = dict(N=256)


def inputs(rng, p):
    n = p["N"]
    x = distinct_floats(rng, (n,), "float32")
    x[5] = np.nan  # clamp keeps NaN (numpy's clip too)
    return {"X": x,
            "S": distinct_floats(rng, (n // 16,), "float32", signed=False)}


def expected(ins, p):
    x, s = ins["X"].astype(F32), ins["S"].astype(F32)
    q = (x / np.repeat(s, 16)).astype(F32)
    y = np.clip(q, F32(-2.0), F32(1.5)).astype(F32)
    k = np.clip(np.trunc(np.nan_to_num((x * F32(4.0)).astype(F32))).astype(np.int64), -3, 5).astype(np.int32)
    k[5] = 0  # int(NaN) is 0 in tilesched (docs/simulator.md), then clamped
    return {"Y": y, "K": k}
