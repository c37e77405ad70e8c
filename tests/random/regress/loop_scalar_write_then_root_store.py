# Regression (random tester, seed 11 of the full profile, minimised). The loop
# updates u3[0, 0] on the scalar unit (S) in every iteration and reloads u3
# (MTE2) inside a guarded inner loop in the first two; the store after the loop
# (MTE3) reads u3 without waiting for the last S write (RAW out of the loop).
# Without the inner loop it passes. Fails in none and double (lower @ 293c731):
#   error: race on 'u3' bytes [0, 2): read by T.copy u3 -> Y1 (MTE3) here and written by
#   store u3 (S) at line 25, with no pipe order, barrier or flag chain between them
# expect_double: pass
import tilelang.language as T


def random_kernel_11():
    @T.prim_func
    def main(
        X0: T.Tensor((1, 32, 8, 128), "float16"),
        X1: T.Tensor((1, 32, 8, 128), "float16"),
        Y1: T.Tensor((1, 32, 8, 128), "float16"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            u0 = T.alloc_ub((8, 128), "float16")
            u3 = T.alloc_ub((8, 128), "float16")

            T.fill(u3, 0.75)
            for i in T.serial(8):
                u3[0, 0] = u3[0, 0] * 2.0 + 1.0
                if i < 2:
                    for j in T.serial(4):
                        u3[0, 0] = u3[0, 0] * 2.0 + 1.0
                        T.copy(X1[bx, (i) * 4 + j, :, :], u3)
                        T.copy(X0[bx, (i) * 4 + j, :, :], u0)
                else:
                    T.copy(X1[bx, i, :, :], u0)
            T.copy(u3, Y1[bx, 0, :, :])

    return main
