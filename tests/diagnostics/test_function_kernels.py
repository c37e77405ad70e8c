# A pytest function compiled with --func: its prim_func may sit inside a
# `with` (patch.object, pytest.raises, ...), and the asserts after the kernel
# is defined check the compiled IR upstream, which tilesched does not model,
# so they do not fail the compile. Asserts before the kernel still run.
# ARGS: --func test_inside_with
import contextlib

import tilelang.language as T


def test_inside_with():
    rows = 4
    assert rows == 4
    with contextlib.nullcontext():

        @T.prim_func
        def main(A: T.Tensor((rows, 64), "float32"), B: T.Tensor((rows, 64), "float32")):
            with T.Kernel(rows) as bx:
                ub = T.alloc_ub((64,), "float32")
                T.copy(A[bx, :], ub)
                T.copy(ub, B[bx, :])

    stores = []
    assert len(stores) == 1


def test_assert_before():
    assert 1 == 2, "runs only when this test is compiled"


# CHECK: T.Kernel(4)
# CHECK: T.alloc_ub((64,), "float32")
