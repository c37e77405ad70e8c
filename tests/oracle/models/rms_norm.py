"""Model of examples/rms_norm.py: RMSNorm over the rows of an M x N matrix,
Y[r, :] = X[r, :] * rsqrt(mean(X[r, :]^2) + eps) * W[:].

X, W and Y have `dtype`; the arithmetic is float32, as the kernel writes it:
mean = (sum over j = 0, 1, ... of x*x, folded in binary32) * (1/N) + eps with
the Python constants 1/N and eps rounded to float32; rsqrt = 1 / sqrtf;
Y = ((x * rstd) * w) rounded once to `dtype` (RNE for float16 / bfloat16).
"""

from oracle_lib import F32, distinct_floats, load, reduce_sum, rsqrt, store

DEFAULTS = dict(M=64, N=256, num_blocks=4, block_rows=4, eps=1e-6, dtype="float16")


def inputs(rng, p):
    return {
        "X": distinct_floats(rng, (p["M"], p["N"]), p["dtype"], lo=1.0 / 64, hi=2.0),
        "W": distinct_floats(rng, (p["N"],), p["dtype"], lo=0.5, hi=2.0),
    }


def expected(ins, p):
    dtype = p["dtype"]
    inv_n = F32(1.0 / p["N"])
    eps = F32(p["eps"])
    xf = load(ins["X"], dtype)
    wf = load(ins["W"], dtype)
    ssum = reduce_sum(xf * xf, axis=-1)
    rstd = rsqrt(ssum * inv_n + eps)
    return {"Y": store((xf * rstd[:, None]) * wf[None, :], dtype)}
