# A kernel defined inside a parametrized test: compiled with the test's first
# complete parameter set, as pytest runs it first.
import pytest

import tilelang.language as T


# expected-warning@+3 col 1 {{this file has no module-level kernel or factory; compiling the kernel that test function 'test_scale' defines}}
# expected-note@+2 col 1 {{'test_scale' takes n=32, scale=2.0 from its @pytest.mark.parametrize; -D NAME=VALUE overrides them}}
# expected-note@+1 col 2 {{with parameter set 1 of this @pytest.mark.parametrize (n=32, scale=2.0)}}
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
