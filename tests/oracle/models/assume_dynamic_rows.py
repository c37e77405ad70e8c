"""Model of tests/oracle/kernels/assume_dynamic_rows.py: Y = X * scale + 1.

The T.dynamic row count m comes from the input's shape (8 rows, a multiple of
the 4 cores, so both T.assume facts hold; the scalar parameter `scale` takes
the run's default of 1, docs/simulator.md). Each operator in binary32.
"""

from oracle_lib import F32, distinct_floats

DEFAULTS = dict(width=256, dtype="float32", rows=8)


def inputs(rng, p):
    return {"X": distinct_floats(rng, (p["rows"], p["width"]), "float32")}


def expected(ins, p):
    scale = F32(1.0)
    return {"Y": (ins["X"].astype(F32) * scale + F32(1.0)).astype(F32)}
