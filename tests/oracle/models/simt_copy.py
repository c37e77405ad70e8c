"""Model of tests/oracle/kernels/simt_copy.py: the (4, 16) box of X at rows
2.., columns 8.., widened to binary32 and doubled."""

from oracle_lib import F32, distinct_floats, load, store

DEFAULTS = dict()


def inputs(rng, p):
    return {"X": distinct_floats(rng, (8, 32), "float16")}


def expected(ins, p):
    x = load(ins["X"], "float16")
    return {"Y": store(x[2:6, 8:24] * F32(2.0), "float32")}
