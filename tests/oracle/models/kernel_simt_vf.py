"""Model of kernels/kernel_simt_vf.py: two launches in order,

    Y = X * 3           (launch 0, a SimtVF region per block)
    Z = Y + X           (launch 1, reads launch 0's Y)

each operation in binary32, rounded to `dtype` when stored.
"""

from oracle_lib import F32, distinct_floats, load, store

DEFAULTS = dict(N=1024, blocks=4, threads=64, dtype="float32")


def inputs(rng, p):
    return {"X": distinct_floats(rng, (p["N"],), p["dtype"])}


def expected(ins, p):
    dtype = p["dtype"]
    x = load(ins["X"], dtype)
    y = store(x * F32(3.0), dtype)
    return {"Y": y, "Z": store(load(y, dtype) + x, dtype)}
