"""Model of tests/oracle/kernels/simd_topk.py: numpy's stable descending sort
(smaller index first on ties) for the top 3, a sequential binary32 sum of the
first 16 scores; the other output elements keep the kernel's fills."""

import numpy as np

from oracle_lib import F32, distinct_floats, load, store

DEFAULTS = dict(rows=4)


def inputs(rng, p):
    s = distinct_floats(rng, (p["rows"], 128), "float32")
    s[1, 100] = s[1, 7]  # a tie: the smaller index wins
    s[1, 7] = np.abs(s[1, 7]) + F32(8.0)
    s[1, 100] = s[1, 7]
    return {"S": s}


def expected(ins, p):
    s = load(ins["S"], "float32")
    idx = np.full((p["rows"], 8), -1, dtype=np.int32)
    idx[:, :3] = np.argsort(-s, axis=1, kind="stable")[:, :3]
    total = np.zeros((p["rows"], 8), dtype=F32)
    for r in range(p["rows"]):
        acc = F32(0.0)
        for lane in range(16):
            acc = F32(acc + s[r, lane])
        total[r, 0] = acc
    return {"IDX": idx, "SUM": store(total, "float32")}
