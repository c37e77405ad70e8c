# Regression (random tester, seed 2407 of the full profile, minimised). In the
# inner loop, iteration j == 0 writes u0 by a load from GM (MTE2, in the `if`)
# and iteration j == 1 overwrites it with a fill (V, in the `else`). The two
# branches exclude each other within one iteration but not across iterations:
# the fill of j == 1 must wait for the load of j == 0 (WAW), and no MTE2 -> V
# flag orders them. Fails in none and double (lower @ 293c731):
#   error: race on 'u0' bytes [0, 1024): written by T.copy Y0 -> u0 (MTE2) here and
#   written by T.fill u0 (V) at line 30, with no pipe order, barrier or flag chain between them
# expect_double: pass
import tilelang.language as T


def random_kernel_2407():
    @T.prim_func
    def main(
        X0: T.Tensor((1, 10, 4, 64), "float32"),
        Y0: T.Tensor((1, 10, 4, 64), "float32"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            u0 = T.alloc_ub((4, 64), "float32")
            u1 = T.alloc_ub((4, 64), "float32")

            for i in T.serial(5):
                T.copy(X0[bx, i, :, :], u1)
                for j in T.serial(2):
                    if j == 0:
                        T.copy(u1, Y0[bx, (i) * 2 + j, :, :])
                        T.copy(Y0[bx, (i) * 2 + j, :, :], u0)
                    else:
                        T.fill(u0, 2.0)

    return main
