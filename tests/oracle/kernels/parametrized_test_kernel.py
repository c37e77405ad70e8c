# A kernel defined inside a parametrized test: tilesched compiles it with the
# first parameter set (n=32, scale=2.0), as pytest runs it first.
import pytest

import tilelang.language as T


@pytest.mark.parametrize("n, scale", [(32, 2.0), (64, 3.0)])
def test_scale(n, scale):
    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        with T.Kernel(1, is_npu=True) as bx:
            a = T.alloc_ub((n,), "float32")
            T.copy(A, a)
            for i in T.Parallel(n):
                a[i] = a[i] * scale
            T.copy(a, B)
