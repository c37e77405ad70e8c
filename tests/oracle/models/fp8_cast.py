"""Model of tests/oracle/kernels/fp8_cast.py, with the OCP 8-bit float formats
written out here (numpy has none). float8 tensors are raw `|u1` codes in the
.npy files (docs/simulator.md).

A code's value: sign, exponent field e, fraction f with m fraction bits and
bias b: (2^m + f) * 2^(e - b - m), or f * 2^(1 - b - m) when e = 0.
E4M3FN (m=3, b=7): no infinities, the all-ones code S.1111.111 is NaN, the
largest finite 448. E5M2 (m=2, b=15): exponent 31 is inf (f=0) or NaN.

Conversion (docs/simulator.md): NaN -> NaN; an infinity stays one in E5M2;
otherwise clamp to the largest finite magnitude (saturation; E4M3FN's
infinities too), then the nearest code, ties to the code with an even last
bit (round to nearest even).
"""

import numpy as np

from oracle_lib import F32

DEFAULTS = dict(M=8, N=256, num_cores=2)

FORMATS = {"e4m3fn": (3, 7), "e5m2": (2, 15)}


def code_values(kind):
    m, bias = FORMATS[kind]
    codes = np.arange(256)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    e = (codes >> m) & ((1 << (7 - m)) - 1)
    f = codes & ((1 << m) - 1)
    mag = np.where(e == 0, f * 2.0 ** (1 - bias - m), ((1 << m) + f) * 2.0 ** (e - bias - m))
    values = sign * mag
    top = (1 << (7 - m)) - 1
    if kind == "e4m3fn":
        values[(e == top) & (f == (1 << m) - 1)] = np.nan
    else:
        values[(e == top) & (f == 0)] = sign[(e == top) & (f == 0)] * np.inf
        values[(e == top) & (f != 0)] = np.nan
    return values


def to_fp8(x, kind):
    table = code_values(kind)
    positive = [c for c in range(128) if np.isfinite(table[c])]  # ascending values
    pos_vals = table[positive]
    biggest = pos_vals[-1]
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    out = np.zeros(x.size, dtype=np.uint8)
    for n, v in enumerate(x):
        if np.isnan(v):
            out[n] = 0x7F if kind == "e4m3fn" else 0x7E
            continue
        if np.isinf(v) and kind == "e5m2":
            out[n] = 0x7C | (0x80 if v < 0 else 0)
            continue
        a = min(abs(v), biggest)
        k = int(np.searchsorted(pos_vals, a))
        if k == len(pos_vals) or pos_vals[k] != a:  # between codes k-1 and k
            lo, hi = positive[k - 1], positive[k]
            dlo, dhi = a - table[lo], table[hi] - a
            code = lo if dlo < dhi else hi if dhi < dlo else (lo if lo % 2 == 0 else hi)
        else:
            code = positive[k]
        out[n] = code | (0x80 if np.signbit(v) else 0)
    return out


def from_fp8(codes, kind):
    return code_values(kind)[np.asarray(codes, dtype=np.int64)].astype(F32)


def inputs(rng, p):
    count = p["M"] * p["N"]
    # Magnitudes from e4m3fn's subnormals to beyond e5m2's range, both signs.
    x = (rng.choice([-1.0, 1.0], size=count) * np.exp2(rng.uniform(-14, 17, size=count))).astype(F32)
    # Exact ties of both formats, the saturation edges, infinities and signed zeros.
    special = [1.0625, 1.1875, -1.0625, 0.5 + 1 / 32, 3 * 2.0 ** -10, 2.0 ** -10, 448.0, 464.0, 465.0,
               480.0, -500.0, 1e9, 57344.0 * 2, 59392.0 * 2, 61440.0 * 2, np.inf, -np.inf, 0.0, -0.0,
               2.0 ** -16, 2.0 ** -17]
    x[: len(special)] = np.array(special, dtype=F32)
    rng.shuffle(x)
    e5_codes = [c for c in range(256) if not np.isnan(code_values("e5m2")[c])]
    e5 = rng.choice(np.array(e5_codes, dtype=np.uint8), size=count)
    shape = (p["M"], p["N"])
    return {"X": x.reshape(shape), "E5In": e5.reshape(shape)}


def expected(ins, p):
    shape = (p["M"], p["N"])
    x = ins["X"].astype(F32)
    q4 = to_fp8(x, "e4m3fn")
    q5 = to_fp8((x * F32(0.5)).astype(F32), "e5m2")
    back = (from_fp8(q4, "e4m3fn") * F32(2.0)).astype(F32)
    e5 = from_fp8(ins["E5In"].reshape(-1), "e5m2")
    return {
        "Q4": q4.reshape(shape),
        "Q5": q5.reshape(shape),
        "Back": back.reshape(shape),
        "E5Out": e5.reshape(shape),
    }
