"""Model of tests/oracle/kernels/simd_bitwise.py in numpy: int32 lanes wrap
(a left shift drops the bits past 32), `>>` is arithmetic on int32 and logical
on uint16."""

import numpy as np

DEFAULTS = dict()


def inputs(rng, p):
    return {
        "X": rng.integers(-(2**31), 2**31, size=64, dtype=np.int64).astype(np.int32),
        "Y": rng.integers(-(2**31), 2**31, size=64, dtype=np.int64).astype(np.int32),
        "S": rng.integers(0, 1000, size=64).astype(np.int32),
        "H": rng.integers(0, 2**16, size=128).astype(np.uint16),
    }


def expected(ins, p):
    x, y = ins["X"].astype(np.int64), ins["Y"].astype(np.int64)
    s = ins["S"].astype(np.int64) & 7
    h = ins["H"].astype(np.int64)
    wrap = lambda v: (v & 0xFFFFFFFF).astype(np.uint32).view(np.int32)  # noqa: E731
    o = np.stack([wrap(x & y), wrap(x | y), wrap(x ^ y), wrap(~x), wrap(x << s), wrap(x >> s),
                  wrap(x << 3), wrap(x >> 2)])
    u = np.stack([(~h) & 0xFFFF, h >> 3]).astype(np.uint16)
    return {"O": o, "U": u}
