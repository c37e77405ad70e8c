# Without --func every factory is compiled, but pytest tests and functions
# that take fixtures are not factories: they are never run.
import pytest
import tilelang.language as T


@pytest.fixture
def dims():
    return (8, 8)


def copy_kernel(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((N,), "float32")
            T.copy(A, a)

    return main


def test_needs_fixture(M):
    assert M == 3

    @T.prim_func
    def main(A: T.Tensor((M,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((M,), "float32")

    return main


def run_with(dims):
    rows, cols = dims
    assert rows > 1000

    @T.prim_func
    def main(A: T.Tensor((rows,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((rows,), "float32")

    return main

# CHECK: A: T.Tensor((64,), "float32")
