"""Model of tests/oracle/kernels/unroll_factor_in_test.py: B[:8] = A[:8] * 2,
B[8:] = A[8:] + 1, in binary32 (unroll_factor changes nothing)."""

from oracle_lib import distinct_floats, load, store

DEFAULTS = dict()


def inputs(rng, p):
    return {"A": distinct_floats(rng, (16,), "float32")}


def expected(ins, p):
    a = load(ins["A"], "float32")
    b = a.copy()
    b[:8] = a[:8] * a.dtype.type(2)
    b[8:] = a[8:] + a.dtype.type(1)
    return {"B": store(b, "float32")}
