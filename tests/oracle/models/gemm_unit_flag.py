"""Model of tests/oracle/kernels/gemm_unit_flag.py: C = A @ B^T with A: M x K,
B: N x K (float16) and a binary32 accumulator folded over k in increasing
order (SPEC §1.6); unit_flag_ctrl changes nothing."""

from oracle_lib import distinct_floats, gemm, load, store

DEFAULTS = dict(M=64, N=64, K=128, TILE_M=32, TILE_N=32, TILE_K=32, enable_unit_flag=True)


def inputs(rng, p):
    return {
        "A": distinct_floats(rng, (p["M"], p["K"]), "float16", lo=1.0 / 256, hi=4.0),
        "B": distinct_floats(rng, (p["N"], p["K"]), "float16", lo=1.0 / 256, hi=4.0),
    }


def expected(ins, p):
    return {"C": store(gemm(load(ins["A"], "float16"), load(ins["B"], "float16").T), "float32")}
