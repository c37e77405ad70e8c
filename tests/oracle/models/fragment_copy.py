"""Model of tests/oracle/kernels/fragment_copy.py: every row of X times 3, in
each of the 3 copies."""

import numpy as np

from oracle_lib import F32, distinct_floats, load, store

DEFAULTS = dict()


def inputs(rng, p):
    return {"X": distinct_floats(rng, (8, 32), "float32")}


def expected(ins, p):
    x = load(ins["X"], "float32") * F32(3.0)
    return {"O": store(np.repeat(x[:, None, :], 3, axis=1), "float32")}
