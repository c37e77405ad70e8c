"""Model of tests/oracle/kernels/scalar_topk_backend.py: numpy's stable
descending sort of S + 1 (binary32), the first TOPK indices per row."""

import numpy as np

from oracle_lib import F32, distinct_floats, load

DEFAULTS = dict(rows=6, cores=4)


def inputs(rng, p):
    s = distinct_floats(rng, (p["rows"], 32), "float32")
    s[2, 5] = s[2, 20] = 10.0  # a tie for the top: the smaller index wins
    return {"S": s}


def expected(ins, p):
    s = load(ins["S"], "float32")
    shifted = (s + F32(1.0)).astype(F32)
    idx = np.argsort(-shifted, axis=1, kind="stable")[:, :4].astype(np.int32)
    return {"OUT": idx}
