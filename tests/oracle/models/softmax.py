"""Model of examples/softmax.py: numerically stable row softmax,
Y[r, j] = exp(X[r, j] - max_k X[r, k]) / sum_k exp(X[r, k] - max_k X[r, k]).

Every buffer has `dtype`. Each operator runs in binary32 and is rounded to
`dtype`; exp is the C library's expf; the row max and the row sum are folds
over k = 0, 1, ... in binary32 (the sum rounded to `dtype` once, when stored).
"""

from oracle_lib import distinct_floats, expf, load, reduce_max, reduce_sum, rounded, store

DEFAULTS = dict(M=64, N=256, num_blocks=4, block_rows=4, dtype="float32")


def inputs(rng, p):
    # Magnitudes up to 8 make exp(x - max) span several binades.
    return {"X": distinct_floats(rng, (p["M"], p["N"]), p["dtype"], lo=0.125, hi=8.0)}


def expected(ins, p):
    dtype = p["dtype"]
    x = load(ins["X"], dtype)
    row_max = rounded(reduce_max(x, axis=-1), dtype)
    shifted = rounded(x - row_max[:, None], dtype)
    e = rounded(expf(shifted), dtype)
    row_sum = rounded(reduce_sum(e, axis=-1), dtype)
    return {"Y": store(e / row_sum[:, None], dtype)}
