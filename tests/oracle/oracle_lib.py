"""Helpers for the oracle models: numerics of SPEC §1.6 written in numpy.

Nothing here reads tilesched's IR or output. A model describes what a kernel
computes the way a kernel author would write it in numpy; these helpers only
pin the evaluation order and rounding that SPEC §1.6 / docs/simulator.md fix:

- float arithmetic: each operator in binary32, the result rounded to the
  expression's dtype (float16: round to nearest even). numpy float32 arrays do
  exactly that (no FMA contraction); `op16` does it for float16 expressions.
- transcendental functions: the C library's binary32 functions (`expf`,
  `tanhf`, `logf`), called through ctypes so the model is bit-exact on the
  host that runs the test; `sigmoid(x) = 1 / (1 + expf(-x))`,
  `rsqrt(x) = 1 / sqrtf(x)` (sqrt is correctly rounded, so numpy's is equal).
- reductions: a fold in increasing index order in binary32, from the identity.
- gemm: a binary32 accumulator, k in increasing order, products in binary32.
"""

import ctypes
import ctypes.util

import numpy as np

F32 = np.float32
F16 = np.float16

_libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
_unary = {}
for _name in ("expf", "tanhf", "logf"):
    _fn = getattr(_libm, _name)
    _fn.restype = ctypes.c_float
    _fn.argtypes = [ctypes.c_float]
    _unary[_name] = np.frompyfunc(_fn, 1, 1)


def _libm_apply(name, x):
    x = np.asarray(x, dtype=F32)
    return np.asarray(_unary[name](x.reshape(-1)), dtype=F32).reshape(x.shape)


def expf(x):
    """C library binary32 exp, element-wise."""
    return _libm_apply("expf", x)


def tanhf(x):
    """C library binary32 tanh, element-wise."""
    return _libm_apply("tanhf", x)


def logf(x):
    """C library binary32 log, element-wise."""
    return _libm_apply("logf", x)


def sigmoid(x):
    """sigmoid(x) = 1 / (1 + expf(-x)), every operator in binary32."""
    x = np.asarray(x, dtype=F32)
    return F32(1.0) / (F32(1.0) + expf(-x))


def rsqrt(x):
    """rsqrt(x) = 1 / sqrtf(x) in binary32."""
    x = np.asarray(x, dtype=F32)
    return F32(1.0) / np.sqrt(x)


def op16(fn, *args):
    """One operator of a float16 expression: operands widened to binary32,
    `fn` applied in binary32, the result rounded to float16 (RNE)."""
    wide = [np.asarray(a).astype(F32) for a in args]
    out = fn(*wide)
    assert out.dtype == F32, "op16: the operator must compute in binary32"
    return out.astype(F16)


def fold(x, axis, step, init):
    """Reduction along `axis` as an explicit fold in increasing index order:
    acc = init; for i: acc = step(acc, x[..., i, ...]) in binary32."""
    x = np.moveaxis(np.asarray(x, dtype=F32), axis, -1)
    acc = np.full(x.shape[:-1], init, dtype=F32)
    for i in range(x.shape[-1]):
        acc = step(acc, x[..., i]).astype(F32)
    return acc


def reduce_sum(x, axis=-1):
    return fold(x, axis, lambda a, v: a + v, 0.0)


def reduce_max(x, axis=-1):
    return fold(x, axis, np.maximum, -np.inf)


def gemm(a, b):
    """C = A @ B with a binary32 accumulator, k in increasing order:
    acc = 0; for k: acc = acc + A[:, k] * B[k, :]."""
    a = np.asarray(a).astype(F32)
    b = np.asarray(b).astype(F32)
    m, k_total = a.shape
    k_b, n = b.shape
    assert k_total == k_b, "gemm: inner dimensions differ"
    acc = np.zeros((m, n), dtype=F32)
    for k in range(k_total):
        acc = acc + np.multiply.outer(a[:, k], b[k, :])
    return acc


def distinct_floats(rng, shape, dtype, lo=0.25, hi=4.0, signed=True):
    """Values of `dtype`, pairwise distinct, with magnitudes in [lo, hi)
    (negative too when `signed`), never zero, in random order. Distinct
    values make a misplaced element visible."""
    count = int(np.prod(shape))
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
        every = every[np.isfinite(every)]
        mags = every[(every >= lo) & (every < hi)]
        pool = np.concatenate([mags, -mags]) if signed else mags
        if pool.size < count:
            raise ValueError(f"only {pool.size} distinct float16 values with magnitude in [{lo}, {hi})")
        return rng.choice(pool, size=count, replace=False).reshape(shape)
    if dtype == np.float32:
        found = np.zeros(0, dtype=F32)
        while found.size < count:
            draw = 2 * count
            mags = rng.uniform(lo, hi, size=draw).astype(F32)
            mags = mags[(mags >= F32(lo)) & (mags < F32(hi))]
            signs = rng.choice(np.array([-1.0, 1.0], dtype=F32), size=mags.size) if signed else F32(1.0)
            candidates = np.concatenate([found, (mags * signs).astype(F32)])
            _, first = np.unique(candidates, return_index=True)
            found = candidates[np.sort(first)]  # first occurrences, in drawing order
        return found[:count].reshape(shape)
    raise ValueError(f"distinct_floats: unsupported dtype {dtype}")
