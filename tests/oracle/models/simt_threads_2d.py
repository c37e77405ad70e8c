"""Model of tests/oracle/kernels/simt_threads_2d.py: E = (A * B + C) * D,
each operator in binary32 (SPEC §1.6)."""

from oracle_lib import F32, distinct_floats

DEFAULTS = dict(N=1024, dtype="float32")


def inputs(rng, p):
    return {name: distinct_floats(rng, (p["N"],), "float32") for name in "ABCD"}


def expected(ins, p):
    a, b, c, d = (ins[n].astype(F32) for n in "ABCD")
    return {"E": ((a * b + c) * d).astype(F32)}
