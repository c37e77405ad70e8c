"""Model of tests/oracle/kernels/splitk_atomic.py (vec_rows_atomic):
O = O0 + sum over rows r of X[r] * scale, each product rounded to `dtype`,
the atomic adds landing in block-id (row) order, each sum rounded to `dtype`.
"""

from oracle_lib import distinct_floats, load, rounded, store

DEFAULTS = dict(R=4, N=256, scale=0.5, dtype="float32")


def inputs(rng, p):
    return {
        "X": distinct_floats(rng, (p["R"], p["N"]), p["dtype"]),
        "O": distinct_floats(rng, (p["N"],), p["dtype"]),
    }


def expected(ins, p):
    dtype = p["dtype"]
    x = load(ins["X"], dtype)
    o = load(ins["O"], dtype)
    for r in range(p["R"]):
        o = rounded(o + rounded(x[r] * p["scale"], dtype), dtype)
    return {"O": store(o, dtype)}
