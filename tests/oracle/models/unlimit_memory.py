"""Model of examples/unlimit_memory.py: row-wise SiLU, Y = X * sigmoid(X).

sigmoid(x) = 1 / (1 + expf(-x)); each operator in binary32, rounded to `dtype`.
T.annotate_unlimit_memory changes only the scheduler's capacity, not values.
"""

from oracle_lib import distinct_floats, load, rounded, sigmoid, store

DEFAULTS = dict(M=4, N=16384, num_blocks=1, unlimit=True, dtype="float32")


def inputs(rng, p):
    return {"X": distinct_floats(rng, (p["M"], p["N"]), p["dtype"], lo=1.0 / 16, hi=8.0)}


def expected(ins, p):
    dtype = p["dtype"]
    x = load(ins["X"], dtype)
    return {"Y": store(x * rounded(sigmoid(x), dtype), dtype)}
