"""Model of tests/oracle/kernels/buffer_locks.py: C = A * 2 + B in binary32
(the product rounded, then the sum)."""

from oracle_lib import F32, distinct_floats

DEFAULTS = dict(N=4096)


def inputs(rng, p):
    return {"A": distinct_floats(rng, (p["N"],), "float32"),
            "B": distinct_floats(rng, (p["N"],), "float32")}


def expected(ins, p):
    a, b = ins["A"].astype(F32), ins["B"].astype(F32)
    return {"C": ((a * F32(2.0)).astype(F32) + b).astype(F32)}
