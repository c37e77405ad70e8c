"""Model of examples/annotate_versions.py: row-tiled SiLU, Y = X * sigmoid(X).

sigmoid(x) = 1 / (1 + expf(-x)); each operator in binary32, rounded to `dtype`.
The version annotations change where tiles live, never the values.
"""

from oracle_lib import distinct_floats, load, rounded, sigmoid, store

DEFAULTS = dict(M=256, N=64, block_M=8, num_blocks=4, num_stages=4, dtype="float32")


def inputs(rng, p):
    return {"X": distinct_floats(rng, (p["M"], p["N"]), p["dtype"], lo=1.0 / 16, hi=8.0)}


def expected(ins, p):
    dtype = p["dtype"]
    x = load(ins["X"], dtype)
    return {"Y": store(x * rounded(sigmoid(x), dtype), dtype)}
