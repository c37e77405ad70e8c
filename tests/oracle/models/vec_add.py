"""Model of examples/vec_add.py: C = A + B, element-wise.

Each sum is computed in binary32 and rounded to `dtype` (SPEC §1.6), which for
float16 is what numpy's float32 -> float16 conversion does (RNE).
"""

import numpy as np
from oracle_lib import F32, distinct_floats

DEFAULTS = dict(N=16384, block_N=4096, sub_N=1024, dtype="float32")


def inputs(rng, p):
    shape = (p["N"],)
    return {"A": distinct_floats(rng, shape, p["dtype"]), "B": distinct_floats(rng, shape, p["dtype"])}


def expected(ins, p):
    c = ins["A"].astype(F32) + ins["B"].astype(F32)
    return {"C": c.astype(np.dtype(p["dtype"]))}
