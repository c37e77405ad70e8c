# Regression (random tester, seed 21 of the full profile, minimised).
# A fill at the kernel root (V) and a load (MTE2) feed a loop whose body reads
# the filled buffer on V (element-wise) and on MTE3 (store). No V -> MTE3 flag
# is emitted for u0. Fails in none and double (lower @ 293c731):
#   error: race on 'u0' bytes [0, 2048): read by T.copy u0 -> Y0 (MTE3) here and written by
#   T.fill u0 (V) at line 22, with no pipe order, barrier or flag chain between them
# expect_double: pass
import tilelang.language as T


def random_kernel_21():
    @T.prim_func
    def main(
        X1: T.Tensor((1, 1, 8, 64), "float32"),
        Y0: T.Tensor((1, 1, 8, 64), "float32"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            u0 = T.alloc_ub((8, 64), "float32")
            u1 = T.alloc_ub((8, 64), "float32")
            u2 = T.alloc_ub((8, 64), "float32")

            T.fill(u0, 0.75)
            T.copy(X1[bx, 0, :, :], u2)
            for j in T.serial(1):
                for r, c in T.Parallel(8, 64):
                    u1[r, c] = u0[r, c] - u2[r, c] + 1.0
                T.copy(u0, Y0[bx, j, :, :])

    return main
