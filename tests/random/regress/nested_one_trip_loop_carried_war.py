# Regression (random tester, seed 140 of the ci profile, minimised). An inner
# loop with a constant trip count of 1 (transparent, SPEC 2.4) inside a loop of
# 3: the load of iteration i + 1 (MTE2) overwrites u8 while the V copy of
# iteration i may still read it (cross-iteration WAR, no V -> MTE2 wait). With
# T.serial(2) as the inner loop, or without the inner loop, it passes. Fails in
# none and double (lower @ 293c731):
#   error: race on 'u8' bytes [0, 256): written by T.copy X1 -> u8 (MTE2) here and read by
#   T.copy u8 -> u9 (V) at line 26, with no pipe order, barrier or flag chain between them
# expect_double: pass
import tilelang.language as T


def random_kernel_140():
    @T.prim_func
    def main(
        X1: T.Tensor((1, 3, 4, 16), "float32"),
        Y0: T.Tensor((1, 3, 4, 16), "float32"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            u8 = T.alloc_ub((4, 16), "float32")
            u9 = T.alloc_ub((4, 16), "float32")

            for i in T.serial(3):
                for j in T.serial(1):
                    T.copy(X1[bx, (i) * 1 + j, :, :], u8)
                    T.copy(u8, u9)
                    T.copy(u8, Y0[bx, (i) * 1 + j, :, :])

    return main
