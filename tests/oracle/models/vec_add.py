"""Model of examples/vec_add.py: C = A + B, element-wise.

Each sum is computed in binary32 and rounded to `dtype` (SPEC §1.6).
"""

from oracle_lib import distinct_floats, load, store

DEFAULTS = dict(N=16384, block_N=4096, sub_N=1024, dtype="float32")


def inputs(rng, p):
    shape = (p["N"],)
    return {"A": distinct_floats(rng, shape, p["dtype"]), "B": distinct_floats(rng, shape, p["dtype"])}


def expected(ins, p):
    dtype = p["dtype"]
    return {"C": store(load(ins["A"], dtype) + load(ins["B"], dtype), dtype)}
