"""Model of tests/oracle/kernels/simd_convert.py in numpy: float8 codes from
the fp8_cast model's table, float16 with saturation written out (a finite
value beyond 65504 becomes +-65504; infinities too; NaN stays NaN), integers
clamped to the target's range."""

import os
import sys

import numpy as np

from oracle_lib import F32, load, store

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fp8_cast import to_fp8  # noqa: E402  (the float8 table, one copy)

DEFAULTS = dict()


def inputs(rng, p):
    mags = np.exp2(rng.uniform(-6, 20, size=64))
    x = (rng.choice([-1.0, 1.0], size=64) * mags).astype(F32)
    # Saturation edges of both formats, an exact float16 tie, a NaN.
    x[:8] = np.array([65504.0, 65520.0, -70000.0, 1e30, 448.0, 465.0, 1.0 + 2.0 ** -11, np.nan],
                     dtype=F32)
    f = (rng.uniform(-100, 100, size=64)).astype(np.float16)
    a = rng.integers(-100000, 100000, size=64).astype(np.int32)
    a[:2] = [32767, -32769]
    return {"X": store(x, "float32"), "F": store(f, "float16"), "A": store(a, "int32")}


def saturating_f16(x):
    x = np.asarray(x, dtype=np.float64)
    clamped = np.where(np.isnan(x), x, np.clip(x, -65504.0, 65504.0))
    return clamped.astype(np.float16)


def truncated_i32(x):
    x = np.asarray(x, dtype=np.float64)
    t = np.trunc(np.where(np.isnan(x), 0.0, x))  # NaN -> 0 (docs/simulator.md)
    return np.clip(t, -2.0 ** 31, 2.0 ** 31 - 1).astype(np.int32)


def expected(ins, p):
    x = load(ins["X"], "float32")
    f = load(ins["F"], "float16")
    a = load(ins["A"], "int32")
    h1 = np.zeros(128, dtype=np.float16)
    h1[1::2] = saturating_f16(x)
    return {
        "Q8": to_fp8(x, "e4m3fn"),
        "H0": store(saturating_f16(x), "float16"),
        "H1": store(h1, "float16"),
        "W": store(f.astype(F32), "float32"),
        "S": np.clip(a, -32768, 32767).astype(np.int16),
        "Z": truncated_i32(x),
    }
