"""Model of tests/oracle/kernels/slice_named_bounds.py.

C = A * (A + B), every operator in binary32 (SPEC §1.6);
D[r, :] = A[r * cols : (r + 1) * cols] * 2 with cols = N // rows.
"""

import numpy as np

from oracle_lib import F32, distinct_floats

DEFAULTS = dict(N=8192, num_blocks=4, tile=512, rows=16, dtype="float32")


def inputs(rng, p):
    return {"A": distinct_floats(rng, (p["N"],), "float32"), "B": distinct_floats(rng, (p["N"],), "float32")}


def expected(ins, p):
    a, b = ins["A"].astype(F32), ins["B"].astype(F32)
    c = a * (a + b)
    d = (a * F32(2.0)).reshape(p["rows"], p["N"] // p["rows"])
    return {"C": c.astype(F32), "D": np.ascontiguousarray(d, dtype=F32)}
