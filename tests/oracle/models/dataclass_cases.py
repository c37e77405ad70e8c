"""Model of tests/oracle/kernels/dataclass_cases.py with the first case:
B = A * 2 over a (4, 64) float32 tile (64 = 40 rounded up to 64)."""

from oracle_lib import distinct_floats, load, store

DEFAULTS = dict()


def inputs(rng, p):
    return {"A": distinct_floats(rng, (4, 64), "float32")}


def expected(ins, p):
    a = load(ins["A"], "float32")
    return {"B": store(a * a.dtype.type(2), "float32")}
