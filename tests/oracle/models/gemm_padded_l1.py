"""Model of tests/oracle/kernels/gemm_padded_l1.py: C = X @ W with X: M x K
and W: K x N (float16), a binary32 accumulator folded over k in increasing
order. The padding rows of the weight tile only reach accumulator columns
that are never stored."""

from oracle_lib import distinct_floats, gemm, load, store

DEFAULTS = dict(M=64, K=32, N_PAD=48)


def inputs(rng, p):
    n = p["N_PAD"] - 16
    return {
        "X": distinct_floats(rng, (p["M"], p["K"]), "float16", lo=1.0 / 256, hi=4.0),
        "W": distinct_floats(rng, (p["K"], n), "float16", lo=1.0 / 256, hi=4.0),
    }


def expected(ins, p):
    x = load(ins["X"], "float16")
    w = load(ins["W"], "float16")
    return {"C": store(gemm(x, w), "float32")}
