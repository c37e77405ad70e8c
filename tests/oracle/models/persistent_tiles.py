"""Model of examples/persistent_tiles.py: Z = alpha * X + Y on an M x N matrix.

The persistent tile loop only decides which core computes which tile; every
element of Z is (alpha * X) + Y, each operator in binary32 rounded to `dtype`,
alpha taking the operand's dtype.
"""

from oracle_lib import F32, distinct_floats, load, rounded, store

DEFAULTS = dict(M=128, N=128, block_M=32, block_N=32, num_cores=3, alpha=2.0, dtype="float32")


def inputs(rng, p):
    shape = (p["M"], p["N"])
    return {"X": distinct_floats(rng, shape, p["dtype"]), "Y": distinct_floats(rng, shape, p["dtype"])}


def expected(ins, p):
    dtype = p["dtype"]
    alpha = rounded(F32(p["alpha"]), dtype)
    scaled = rounded(alpha * load(ins["X"], dtype), dtype)
    return {"Z": store(scaled + load(ins["Y"], dtype), dtype)}
