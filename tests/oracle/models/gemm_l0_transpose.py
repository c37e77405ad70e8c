"""Model of tests/oracle/kernels/gemm_l0_transpose.py: C = A @ B, each C[m, n]
one binary32 fold over k = 0 .. K - 1 of A[m, k] * B[k, n] from 0."""

from oracle_lib import distinct_floats, gemm, load, store

DEFAULTS = dict(M=32, N=48, K=64)


def inputs(rng, p):
    return {
        "A": distinct_floats(rng, (p["M"], p["K"]), "float16", lo=1.0 / 256, hi=4.0),
        "B": distinct_floats(rng, (p["K"], p["N"]), "float16", lo=1.0 / 256, hi=4.0),
    }


def expected(ins, p):
    return {"C": store(gemm(load(ins["A"], "float16"), load(ins["B"], "float16")), "float32")}
