"""Model of kernels/launch_sequence.py: three launches run in order on one
global memory.

    B1 = A + 1          (launch 0)
    C  = B1 * 2         (launch 1, reads launch 0's B)
    B  = C - A          (launch 2, reads launch 1's C, overwrites B)

Each launch rounds its one operation to `dtype` when it stores (SPEC §1.6).
"""

from oracle_lib import F32, distinct_floats, load, store

DEFAULTS = dict(N=2048, block_N=512, sub_N=128, dtype="float32")


def inputs(rng, p):
    return {"A": distinct_floats(rng, (p["N"],), p["dtype"])}


def expected(ins, p):
    dtype = p["dtype"]
    a = load(ins["A"], dtype)
    b1 = store(a + F32(1.0), dtype)
    c = store(load(b1, dtype) * F32(2.0), dtype)
    b = store(load(c, dtype) - a, dtype)
    return {"B": b, "C": c}
