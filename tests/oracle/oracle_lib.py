"""Helpers for the oracle models: numerics of SPEC §1.6 written in numpy.

Nothing here reads tilesched's IR or output. A model describes what a kernel
computes the way a kernel author would write it in numpy; these helpers only
pin the evaluation order and rounding that SPEC §1.6 / docs/simulator.md fix:

- float arithmetic: each operator in binary32, the result rounded to the
  expression's dtype (float16: round to nearest even). numpy float32 arrays do
  exactly that (no FMA contraction); `rounded(x, dtype)` adds the rounding of
  each operator of a float16 / bfloat16 expression.
- transcendental functions: the C library's binary32 functions (`expf`,
  `tanhf`, `logf`), called through ctypes so the model is bit-exact on the
  host that runs the test; `sigmoid(x) = 1 / (1 + expf(-x))`,
  `rsqrt(x) = 1 / sqrtf(x)` (sqrt is correctly rounded, so numpy's is equal).
- reductions: a fold in increasing index order in binary32, from the identity.
- gemm: a binary32 accumulator, k in increasing order, products in binary32.
- storage: `store(values, dtype)` rounds binary32 values to a buffer dtype
  (RNE for float16 and bfloat16); `load(array, dtype)` widens them back.
  bfloat16 tensors are raw `<u2` bits in .npy files (docs/simulator.md), so
  models pass the dtype name around, not a numpy dtype.
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


def storage_dtype(dtype):
    """The numpy dtype of a tensor of `dtype` in a .npy file."""
    return np.dtype(np.uint16) if str(dtype) == "bfloat16" else np.dtype(dtype)


def store(values, dtype):
    """Binary32 values rounded to `dtype` as stored in memory: float16 with
    numpy's RNE conversion, bfloat16 as RNE-rounded upper 16 bits."""
    values = np.asarray(values, dtype=F32)
    if str(dtype) != "bfloat16":
        return values.astype(storage_dtype(dtype))
    bits = values.view(np.uint32).astype(np.uint64)
    sixteen, one = np.uint64(16), np.uint64(1)
    rounded = ((bits + np.uint64(0x7FFF) + ((bits >> sixteen) & one)) >> sixteen).astype(np.uint16)
    return np.where(np.isnan(values), np.uint16(0x7FC0), rounded)


def load(array, dtype):
    """A tensor of `dtype` widened to binary32 (exact)."""
    array = np.asarray(array)
    if str(dtype) != "bfloat16":
        return array.astype(F32)
    return (array.astype(np.uint32) << np.uint32(16)).view(F32)


def rounded(values, dtype):
    """One operator's binary32 result rounded to `dtype`, as binary32 again."""
    return load(store(values, dtype), dtype)


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


# Set by run_oracle.py --wide LO HI: distinct_floats then returns wide-range
# values instead (see wide_floats).
WIDE_RANGE = None


def wide_floats(rng, shape, dtype, lo, hi):
    """Values of `dtype` of any magnitude in about [lo, hi] (log-uniform in
    binary32, both signs, then rounded to `dtype`) plus about 2% signed zeros,
    repeats allowed: they reach overflow to inf, subnormals, signed zeros and
    exp/tanh saturation. `hi` must be finite in `dtype`."""
    count = int(np.prod(shape))
    exponents = rng.uniform(np.log2(lo), np.log2(hi), size=count)
    signs = rng.choice(np.array([-1.0, 1.0]), size=count)
    values = np.minimum(np.exp2(exponents), hi)
    values[rng.random(count) < 0.02] = 0.0
    values = (signs * values).astype(F32)  # a zero keeps its sign
    out = store(values, dtype)
    if not np.isfinite(load(out, dtype)).all():
        raise ValueError(f"wide_floats: hi={hi} is not finite in {dtype}")
    return out.reshape(shape)


def distinct_floats(rng, shape, dtype, lo=0.25, hi=4.0, signed=True):
    """Values of `dtype`, pairwise distinct, with magnitudes in [lo, hi)
    (negative too when `signed`), never zero, in random order. Distinct
    values make a misplaced element visible. Under run_oracle.py --wide the
    values come from wide_floats instead."""
    if WIDE_RANGE is not None:
        return wide_floats(rng, shape, dtype, *WIDE_RANGE)
    count = int(np.prod(shape))
    if str(dtype) in ("float16", "bfloat16"):
        every = np.arange(1 << 16, dtype=np.uint16)
        values = load(every if str(dtype) == "bfloat16" else every.view(F16), dtype)
        keep = np.isfinite(values) & (np.abs(values) >= lo) & (np.abs(values) < hi)
        if not signed:
            keep &= values > 0
        pool = every[keep]
        if pool.size < count:
            raise ValueError(f"only {pool.size} distinct {dtype} values with magnitude in [{lo}, {hi})")
        return rng.choice(pool, size=count, replace=False).view(storage_dtype(dtype)).reshape(shape)
    if np.dtype(dtype) == np.float32:
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
