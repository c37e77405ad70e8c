"""Model of tests/oracle/kernels/gemm_transpose_tails.py: C = A^T @ B^T with
A: K x M and B: N x K (float16), a binary32 accumulator folded over k in
increasing order. The zero-filled K tail of the edge tiles adds exact zeros,
so the fold over the real K is the whole answer."""

from oracle_lib import distinct_floats, gemm, load, store

DEFAULTS = dict(M=40, N=48, K=72, TILE_M=32, TILE_N=32, TILE_K=32)


def inputs(rng, p):
    return {
        "A": distinct_floats(rng, (p["K"], p["M"]), "float16", lo=1.0 / 256, hi=4.0),
        "B": distinct_floats(rng, (p["N"], p["K"]), "float16", lo=1.0 / 256, hi=4.0),
    }


def expected(ins, p):
    a = load(ins["A"], "float16").T
    b = load(ins["B"], "float16").T
    return {"C": store(gemm(a, b), "float32")}
