"""Model of tests/oracle/kernels/truth_values.py: Python's truth rule applied
to each value with numpy (nonzero is true, NaN is true, -0.0 is false)."""

import numpy as np

DEFAULTS = dict(W=16)


def inputs(rng, p):
    w = p["W"]
    gate = rng.choice(np.array([-2, 0, 1, 2, 3], dtype=np.int32), size=w).astype(np.int32)
    gate[:5] = [0, 1, 2, -2, 3]  # every kind of row at least once
    fl = rng.choice(np.array([0.0, -0.0, 0.5, -1.25, np.nan], dtype=np.float32), size=w).astype(np.float32)
    fl[:5] = [0.0, -0.0, 0.5, np.nan, 0.0]
    return {"gate": gate, "fl": fl, "thr": 3}


def expected(ins, p):
    gate, fl, thr = ins["gate"], ins["fl"], ins["thr"]
    out = np.zeros((p["W"], 18), dtype=np.int32)
    for w in range(p["W"]):
        g = bool(gate[w] != 0)
        n = int(gate[w])
        x = n - 1
        f = bool(fl[w] != 0 or np.isnan(fl[w]))
        row = out[w]
        row[0] = g
        row[1] = n != 0
        row[2] = n != 0
        row[3] = f
        row[4] = x != 0
        row[5] = thr != 0
        row[6] = not g
        row[7] = x == 0
        row[8] = g and x != 0
        row[9] = n != 0 or f
        row[10] = 5 if g else 7
        row[11] = 5 if x != 0 else 7
        row[12] = 5 if g else 7
        row[13] = 1 if x != 0 else (2 if g else 3)
        row[14] = int(g)
        row[15] = n > 1
        row[16] = f
        row[17] = 5 if not f else 7
    return {"OUT": out}
