"""Model of examples/ring_buffer.py: Y = X * alpha + beta, element-wise.

The hand-written two-slot ring only changes when tiles move, not the value:
Y[i] = (X[i] * alpha) + beta, each operator in binary32 with the Python
constants alpha and beta taking the operand's dtype, rounded to `dtype`.
"""

import numpy as np
from oracle_lib import F32, distinct_floats

DEFAULTS = dict(N=16384, block_N=4096, TILE=512, alpha=2.0, beta=1.0, dtype="float32")


def inputs(rng, p):
    return {"X": distinct_floats(rng, (p["N"],), p["dtype"])}


def expected(ins, p):
    dtype = np.dtype(p["dtype"])
    alpha = F32(np.asarray(p["alpha"], dtype=dtype))
    beta = F32(np.asarray(p["beta"], dtype=dtype))
    x = ins["X"].astype(F32)
    scaled = (x * alpha).astype(dtype).astype(F32)
    return {"Y": (scaled + beta).astype(dtype)}
