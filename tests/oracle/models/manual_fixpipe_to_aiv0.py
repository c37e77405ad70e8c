"""Model of tests/oracle/kernels/manual_fixpipe_to_aiv0.py: a binary32 GEMM
(k in increasing order) of float16 inputs, then + 1 rounded to binary32."""

import numpy as np

from oracle_lib import distinct_floats, gemm, load, store

DEFAULTS = dict(M=128, N=64, K=64, TILE=64)


def inputs(rng, p):
    return {
        "X": distinct_floats(rng, (p["M"], p["K"]), "float16", lo=1.0 / 256, hi=4.0),
        "W": distinct_floats(rng, (p["K"], p["N"]), "float16", lo=1.0 / 256, hi=4.0),
    }


def expected(ins, p):
    c = gemm(load(ins["X"], "float16"), load(ins["W"], "float16"))
    return {"C": store(c + np.float32(1.0), "float32")}
