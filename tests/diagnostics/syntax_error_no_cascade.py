# A syntax error is reported once: the names the broken statement would have
# bound do not cascade into "name is not defined" errors (issue 22).
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((1024,), "float32"), B: T.Tensor((1024,), "float32")):
    with T.Kernel(1) as bx:
        a = T.alloc_ub((1024,) "float32")  # expected-error col 32 {{expected ')' to close '(' at 9:23}}
        for i in T.serial(4):
            T.copy(A[i * 256 : i * 256 + 256], a[0:256])
        T.copy(a, B)
