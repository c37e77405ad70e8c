"""Model of tests/oracle/kernels/manual_mix_gemm.py: a binary32 GEMM (k in
increasing order) of float16 inputs; the second half of the rows of every TILE-row tile are
the second vector core's, scaled by 2 instead of 1; then + 0.5, each step
rounded to binary32."""

import numpy as np

from oracle_lib import distinct_floats, gemm, load, store

DEFAULTS = dict(M=128, N=128, K=128, TILE=64)


def inputs(rng, p):
    return {
        "X": distinct_floats(rng, (p["M"], p["K"]), "float16", lo=1.0 / 256, hi=4.0),
        "W": distinct_floats(rng, (p["K"], p["N"]), "float16", lo=1.0 / 256, hi=4.0),
    }


def expected(ins, p):
    c = gemm(load(ins["X"], "float16"), load(ins["W"], "float16"))
    rows = np.arange(p["M"]) % p["TILE"]
    scale = np.where(rows < p["TILE"] // 2, np.float32(1.0), np.float32(2.0)).astype(np.float32)
    c = c * scale[:, None] + np.float32(0.5)
    return {"C": store(c, "float32")}
