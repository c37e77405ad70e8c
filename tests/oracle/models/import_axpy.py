"""Model of tests/oracle/kernels/test_import_axpy.py (the factory axpy_rows of
its sibling module example_import_axpy.py): O = X * alpha + Y, each operator
rounded to binary32 (SPEC §1.6). The sizes are the test's first
@pytest.mark.parametrize set and the constants of its body, not the factory's
defaults: a kernel built from another set has other shapes and fails here.
"""

from oracle_lib import F32, distinct_floats

DEFAULTS = dict(M=64, N=128, block_M=16, alpha=0.5, sub_M=4, dtype="float32")


def inputs(rng, p):
    shape = (p["M"], p["N"])
    return {"X": distinct_floats(rng, shape, "float32"), "Y": distinct_floats(rng, shape, "float32")}


def expected(ins, p):
    x, y = ins["X"].astype(F32), ins["Y"].astype(F32)
    return {"O": (x * F32(p["alpha"]) + y).astype(F32)}
