"""Model of tests/oracle/kernels/loop_extent_var.py: the two loop nests run
in Python with numpy binary32 arithmetic; tiles no iteration writes keep the
harness's NaN sentinel."""

import numpy as np

from oracle_lib import F32, distinct_floats

DEFAULTS = dict(dtype="float32")
TILE, OUTER = 512, 5


def inputs(rng, p):
    t7 = rng.integers(-3, 4, size=TILE).astype(np.int32)
    t7[486] = 1  # n: 3, 4, 4, ...: the first nest runs one trip at o = 0 only
    t7[5] = 2    # m: 2, 4, 6, 8, 10 ... (m % 3 = 2, 1, 0, 2, 1 trips)
    return {"A": distinct_floats(rng, (OUTER * TILE,), "float32"), "T7": t7}


def expected(ins, p):
    a, t7 = ins["A"].astype(F32), ins["T7"]
    c = np.full(OUTER * TILE, np.nan, dtype=F32)
    d = np.full(OUTER * TILE, np.nan, dtype=F32)
    n = 3
    for o in range(OUTER):
        for _ in range(n % 2):
            c[o * TILE:(o + 1) * TILE] = a[o * TILE:(o + 1) * TILE] + F32(1.0)
            n += int(t7[486])
    m = 2
    for o in range(OUTER):
        for _ in range(m % 3):
            d[o * TILE:(o + 1) * TILE] = a[o * TILE:(o + 1) * TILE] * F32(m)
            m += int(t7[5])
    return {"C": c, "D": d}
