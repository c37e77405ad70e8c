"""Model of tests/oracle/kernels/copy_pad_rows.py: each row of A (N float32
values) padded to the next multiple of 8 columns (32 bytes) with `fill`, the
rest of the N_pad-column row unwritten by the copy; then + 1 in binary32."""

import numpy as np
from oracle_lib import F32, distinct_floats

DEFAULTS = dict(M=8, N=30, N_pad=32, fill=-2.5, select=0)


def inputs(rng, p):
    return {"A": distinct_floats(rng, (p["M"], p["N"]), "float32")}


def expected(ins, p):
    n, n_pad = p["N"], p["N_pad"]
    padded = -(-n // 8) * 8
    assert padded == n_pad, "the model covers a UB row exactly as wide as the padded row"
    row = np.full((p["M"], n_pad), F32(p["fill"]), dtype=F32)
    row[:, :n] = ins["A"].astype(F32)
    return {"B": (row + F32(1.0)).astype(F32)}
