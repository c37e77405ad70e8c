# T.unroll(n, unroll_factor=k): a code-generation hint, which must be a
# positive integer.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((16,), "float32")):
    with T.Kernel(1, is_npu=True) as bx:
        for i in T.unroll(8, unroll_factor=4):
            A[i] = T.float32(1)
        for i in T.unroll(8, unroll_factor=0):  # expected-error col 44 {{unroll_factor must be a positive integer, got 0}}
            A[i + 8] = T.float32(2)
