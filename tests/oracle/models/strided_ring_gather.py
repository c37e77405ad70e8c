"""Model of tests/oracle/kernels/strided_ring_gather.py.

The start offsets are signed, in (-rows, rows), so both T.assume facts hold
and truncmod differs from Python's % on about half of them. C's truncating
division and remainder are numpy's fix/fmod. Each operator in binary32.
"""

import numpy as np

from oracle_lib import F32, distinct_floats

# cache_stride: the leading stride (None: dense); values never depend on it.
DEFAULTS = dict(rows=16, width=128, n_out=16, taps=5, cache_stride=None)


def inputs(rng, p):
    rows = p["rows"]
    return {
        "cache": distinct_floats(rng, (rows, p["width"]), "float32"),
        "start": rng.integers(-rows + 1, rows, size=(p["n_out"],)).astype(np.int32),
    }


def expected(ins, p):
    rows = p["rows"]
    s = ins["start"].astype(np.int64)
    slot = np.fmod(s + p["taps"], rows)
    slot = np.where(slot < 0, slot + rows, slot)
    # Constant operands fold at compile time: fmod(-7, 3) * fix(-7 / 2) = -1 * -3.
    bias = (np.fix(s / 3.0) + np.fmod(-7, 3) * np.fix(-7 / 2.0)).astype(F32)
    out = ins["cache"][slot].astype(F32) * F32(2.0) + bias[:, None]
    return {"out": out.astype(F32)}
