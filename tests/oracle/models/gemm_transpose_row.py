"""Model of tests/oracle/kernels/gemm_transpose_row.py: the tile holds row 0
of A as its first column and zeros elsewhere; C = tile @ B with a binary32
accumulator."""

import numpy as np

from oracle_lib import F32, distinct_floats, gemm, load, store

DEFAULTS = dict()


def inputs(rng, p):
    return {
        "A": distinct_floats(rng, (16, 32), "float16", lo=1.0 / 256, hi=4.0),
        "B": distinct_floats(rng, (32, 32), "float16", lo=1.0 / 256, hi=4.0),
    }


def expected(ins, p):
    tile = np.zeros((32, 32), dtype=F32)
    tile[:, 0] = load(ins["A"], "float16")[0, :]
    return {"C": store(gemm(tile, load(ins["B"], "float16")), "float32")}
