# An assert before the kernel of a compiled pytest function still runs.
# ARGS: --func test_checks_first
import tilelang.language as T


def test_checks_first():
    rows = 3
    assert rows % 2 == 0, "rows must be even"  # expected-error col 5 {{assertion failed: rows must be even}}

    @T.prim_func
    def main(A: T.Tensor((rows, 64), "float32")):
        with T.Kernel(rows) as bx:
            ub = T.alloc_ub((64,), "float32")
            T.copy(A[bx, :], ub)
