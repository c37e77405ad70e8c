"""Model of tests/oracle/kernels/parametrized_test_kernel.py with pytest's
first parameter set: B = A * 2 over 32 float32 elements."""

from oracle_lib import distinct_floats, load, store

DEFAULTS = dict()


def inputs(rng, p):
    return {"A": distinct_floats(rng, (32,), "float32")}


def expected(ins, p):
    a = load(ins["A"], "float32")
    return {"B": store(a * a.dtype.type(2), "float32")}
