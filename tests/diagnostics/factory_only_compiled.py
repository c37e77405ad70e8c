# Only the factory being compiled runs. pytest tests, functions taking
# fixtures and helpers are not factories, so the asserts in them do not fail
# this compile; a prim_func nested in an inner @tilelang.jit function is found.
# ARGS: --func staged_copy
import pytest
import tilelang
import tilelang.language as T


@pytest.fixture
def size():
    return 64


def strict(N):
    assert N % 7 == 0, "strict wants a multiple of 7"

    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((N,), "float32")
            T.copy(A, a)

    return main


def staged_copy(M, N):
    @tilelang.jit(out_idx=[-1])
    def build(block_M, stages=2):
        @T.prim_func
        def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
            with T.Kernel(M // block_M) as bx:
                a = T.alloc_shared((block_M, N), "float32")
                for s in T.Pipelined(1, num_stages=stages):
                    T.copy(A[bx * block_M, 0], a)
                    T.copy(a, B[bx * block_M, 0])

        return main

    return build(16)


def check_close(x, y):
    assert x == y, "helper assert"


def test_staged(size):
    check_close(1, 2)
    kernel = staged_copy(size, 32)


def test_inline(M, N):
    assert M > 100000

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32")):
        with T.Kernel(1) as bx:
            a = T.alloc_shared((M, N), "float32")

    return main


if __name__ == "__main__":
    strict(10)
    staged_copy(128, 32)  # expected-note col 5 {{factory 'staged_copy' takes M=128, N=32 from its call at line 65; -D NAME=VALUE overrides them}}

# 128 rows in blocks of 16: 8 blocks.
# CHECK: A: T.Tensor((128, 32), "float32")
# CHECK: T.Kernel(8)
# CHECK: T.alloc_shared((16, 32), "float32")
