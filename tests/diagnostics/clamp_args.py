# T.clamp(x, min_val, max_val) takes exactly three values.
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((8,), "float32"), B: T.Tensor((8,), "float32")):
    with T.Kernel(1) as bx:
        for i in T.serial(8):
            B[i] = T.clamp(A[i], 0.0)  # expected-error col 20 {{T.clamp takes (x, min_val, max_val) (2 given)}}
            B[i] = T.clamp(A[i], 0.0, 1.0, hi=2.0)  # expected-error col 44 {{unknown keyword argument 'hi' to T.clamp; accepted: min_val, max_val}}
            B[i] = T.clamp(A[i], max_val=1.0, min_val=0.0)
            B[i] = T.clamp(A[i], 0.0, min_val=0.5)  # expected-error col 39 {{T.clamp got two values for min_val}}
