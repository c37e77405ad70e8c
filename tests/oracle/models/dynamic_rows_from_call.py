"""Model of tests/oracle/kernels/dynamic_rows_from_call.py: Y = X * 3 + B.

The row count is the one the kernel file's own call uses (10 rows); every row
is written, including the two rows of the last, partly guarded block. Each
operator in binary32.
"""

from oracle_lib import F32, distinct_floats

DEFAULTS = dict(width=64, block_rows=4, dtype="float32", rows=10)


def inputs(rng, p):
    return {
        "X": distinct_floats(rng, (p["rows"], p["width"]), "float32"),
        "B": distinct_floats(rng, (p["width"],), "float32"),
    }


def expected(ins, p):
    x = ins["X"].astype(F32)
    b = ins["B"].astype(F32)
    return {"Y": ((x * F32(3.0)).astype(F32) + b).astype(F32)}
