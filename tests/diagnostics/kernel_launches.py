# Several `with T.Kernel` launches in one prim_func, and `with T.Kernel(...), T.SimtVF(...)`.
# CHECK: # kernel main, launch 0 of 2
# CHECK: def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
# CHECK:     with T.Kernel(2) as bx:
# CHECK:         with T.SimtVF(threads=32):
# CHECK:     with T.Kernel(1) as bx:
# CHECK:         with T.SimdVF():
import tilelang.language as T

N = 64


@T.prim_func
def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
    with T.Kernel(2) as bx, T.SimtVF(threads=32):
        for i in T.Parallel(N // 2):
            B[bx * (N // 2) + i] = A[bx * (N // 2) + i] + 1.0
    with T.Kernel(1), T.SimdVF():
        for i in T.Parallel(N):
            A[i] = B[i] * 2.0
