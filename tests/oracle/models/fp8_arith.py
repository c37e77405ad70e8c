"""Model of tests/oracle/kernels/fp8_arith.py: float8 codes decoded with the
fp8_cast model's table, each operation in float32 (numpy), rounded back with
that model's saturating round to nearest even."""

import os
import sys

import numpy as np

from oracle_lib import F32

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fp8_cast import from_fp8, to_fp8  # noqa: E402  (the float8 table, one copy)

DEFAULTS = dict(n=256)


def finite_codes(rng, n, kind):
    table_nan = np.isnan(from_fp8(np.arange(256), kind)) | np.isinf(from_fp8(np.arange(256), kind))
    ok = np.flatnonzero(~table_nan)
    return rng.choice(ok, size=n).astype(np.uint8)


def inputs(rng, p):
    n = p["n"]
    return {
        "A": finite_codes(rng, n, "e4m3fn"),
        "B": finite_codes(rng, n, "e4m3fn"),
        "X": finite_codes(rng, n, "e5m2"),
        "Y": finite_codes(rng, n, "e5m2"),
    }


def expected(ins, p):
    a = from_fp8(ins["A"], "e4m3fn")
    b = from_fp8(ins["B"], "e4m3fn")
    x = from_fp8(ins["X"], "e5m2")
    y = from_fp8(ins["Y"], "e5m2")

    def r8(v):
        return to_fp8(np.asarray(v, dtype=F32), "e4m3fn")

    with np.errstate(divide="ignore", invalid="ignore"):
        quotient = (a / b).astype(F32)
    s = from_fp8(r8(a + b), "e4m3fn")
    return {
        "S": r8(a + b),
        "D": r8(a - b),
        "P": r8(a * b),
        "Q": r8(quotient),
        "N": r8(-a),
        "C": r8(s * a),
        "E": to_fp8((x + y).astype(F32), "e5m2"),
    }
