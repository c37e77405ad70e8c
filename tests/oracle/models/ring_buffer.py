"""Model of examples/ring_buffer.py: Y = X * alpha + beta, element-wise.

The hand-written two-slot ring only changes when tiles move, not the value:
Y[i] = (X[i] * alpha) + beta, each operator in binary32 rounded to `dtype`,
with the Python constants alpha and beta taking the operand's dtype (TVM's
rule, docs/language.md).
"""

from oracle_lib import F32, distinct_floats, load, rounded, store

DEFAULTS = dict(N=16384, block_N=4096, TILE=512, alpha=2.0, beta=1.0, dtype="float32")


def inputs(rng, p):
    return {"X": distinct_floats(rng, (p["N"],), p["dtype"])}


def expected(ins, p):
    dtype = p["dtype"]
    alpha = rounded(F32(p["alpha"]), dtype)
    beta = rounded(F32(p["beta"]), dtype)
    scaled = rounded(load(ins["X"], dtype) * alpha, dtype)
    return {"Y": store(scaled + beta, dtype)}
