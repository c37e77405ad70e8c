"""Model of tests/oracle/kernels/simt_thread_binding.py in numpy (int32)."""

import numpy as np

DEFAULTS = dict()


def inputs(rng, p):
    return {}


def expected(ins, p):
    k = np.arange(128, dtype=np.int32)
    t = k * 3
    return {
        "O": t[k ^ 127].astype(np.int32),
        "R": t[np.arange(16) * 8].astype(np.int32),
        "B": (((k & 5) | (k << 2)) ^ (k >> 1)).astype(np.int32),
    }
