# A codegen-test-style file (after upstream's test_tilelang_ascend_unroll.py):
# the kernel is defined inside a test function, so tilesched compiles that
# test's kernel; T.unroll's unroll_factor is a code-generation hint that must
# not change what the loop computes.
import tilelang.language as T


def test_unroll_factor_keeps_the_values():
    @T.prim_func
    def main(A: T.Tensor((16,), T.float32), B: T.Tensor((16,), T.float32)):
        with T.Kernel(1):
            for i in T.unroll(8, unroll_factor=4):
                B[i] = A[i] * T.float32(2)
            for i in T.unroll(8):
                B[i + 8] = A[i + 8] + T.float32(1)
