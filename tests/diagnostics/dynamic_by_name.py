# `m = T.dynamic("m")` in factory code, used through its name (directly or in
# a shape tuple) in parameter shapes, is the same run-time size as the inline
# T.dynamic("m"): one dynamic variable shared by both tensors.
import tilelang.language as T


def rows_copy(N=32, block=8, dtype="float32"):
    m = T.dynamic("m")
    shape = (m, N)

    @T.prim_func
    def main(A: T.Tensor(shape, dtype), B: T.Tensor((m, N), dtype), C: T.Tensor((T.dynamic("m"),), dtype)):
        with T.Kernel(4) as bx:
            a = T.alloc_shared((block, N), dtype)
            T.copy(A[bx * block:bx * block + block, :], a)
            T.copy(a, B[bx * block:bx * block + block, :])

    return main

# CHECK: def main(A: T.Tensor((m, 32), "float32"), B: T.Tensor((m, 32), "float32"), C: T.Tensor((m,), "float32")):
