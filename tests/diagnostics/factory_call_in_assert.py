# The factory's arguments come from the file's own call, also when a pytest
# test reaches it through `assert helper(...)` (upstream's test_fp8_vecadd.py).
import pytest
import tilelang.language as T


def scale(n):
    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((n,), "float32")
            T.copy(A, a)
            for i in T.Parallel(n):
                a[i] = a[i] * 2.0
            T.copy(a, B)

    return main


def run_case(per_thread):
    kernel = scale(per_thread * 32)  # expected-note col 14 {{factory 'scale' takes n=128 from its call at line 21; -D NAME=VALUE overrides them}}
    return kernel is not None


@pytest.mark.parametrize("per_thread", [4, 8])  # expected-note col 2 {{with parameter set 1 of this @pytest.mark.parametrize (per_thread=4)}}
def test_scale(per_thread):
    assert run_case(per_thread), "mismatch"
