"""Model of tests/oracle/kernels/splitk_atomic.py (splitk_atomic):
C = C0 + sum over blocks b of P_b, where P_b is the binary32 gemm fold over
block b's K slice (k increasing, from 0) and the atomic adds land in block-id
order (docs/simulator.md): C = fl32(fl32(C0 + P_0) + P_1) + ...
"""

import numpy as np

from oracle_lib import distinct_floats, gemm, load, store

DEFAULTS = dict(M=32, N=32, K=128, split=4, block_K=16, dtype="float16", accum_dtype="float32")


def inputs(rng, p):
    return {
        "A": distinct_floats(rng, (p["M"], p["K"]), p["dtype"], lo=1.0 / 256, hi=4.0),
        "B": distinct_floats(rng, (p["K"], p["N"]), p["dtype"], lo=1.0 / 256, hi=4.0),
        "C": distinct_floats(rng, (p["M"], p["N"]), p["accum_dtype"], lo=1.0 / 64, hi=64.0),
    }


def expected(ins, p):
    a = load(ins["A"], p["dtype"])
    b = load(ins["B"], p["dtype"])
    c = load(ins["C"], p["accum_dtype"])
    per_block = p["K"] // p["split"]
    for blk in range(p["split"]):
        ks = slice(blk * per_block, (blk + 1) * per_block)
        c = (c + gemm(a[:, ks], b[ks, :])).astype(np.float32)
    return {"C": store(c, p["accum_dtype"])}
