# Regression (random tester, seed 3209 of the full profile, minimised). Double
# only (none passes). A loop of 0 iterations (`for j in T.serial(0)`, holding an
# inner loop of 4) inside a persistent loop of 4: the MTE2 -> MTE3 flag ring of
# the inner loop is set again while still set, the program is illegal and the
# outputs differ. The lowered-IR verifier did not reject it (lower @ 293c731):
#   error: set_flag("MTE2", "MTE3", 1) sets a flag that is already set (set at line 27
#   and not waited for since)
# expect_double: pass
import tilelang.language as T


def random_kernel_3209():
    @T.prim_func
    def main(
        X1: T.Tensor((1, 16, 2, 128), "float32"),
        Y0: T.Tensor((1, 16, 2, 128), "float32"),
        Y1: T.Tensor((1, 16, 2, 128), "float32"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            u0 = T.alloc_ub((2, 128), "float32")
            u2 = T.alloc_ub((2, 128), "float32")
            u3 = T.alloc_ub((2, 128), "float32")
            u4 = T.alloc_ub((2, 128), "float32")

            T.fill(u2, 0.75)
            with T.Persistent(4, num_stages=2) as i:
                for j in T.serial(0):
                    for l in T.serial(4):
                        T.copy(X1[bx, ((i) * 1 + j) * 4 + l, :, :], u4)
                        T.copy(u4, Y1[bx, ((i) * 1 + j) * 4 + l, :, :])
                        T.copy(X1[bx, ((i) * 1 + j) * 4 + l, :, :], u3)
                    T.copy(u3, Y1[bx, (i) * 1 + j, :, :])
                T.copy(u2, Y0[bx, i, :, :])
            for p in T.Pipelined(0, num_stages=1):
                T.copy(u2, Y0[bx, p, :, :])
                T.copy(Y0[bx, p, :, :], u4)
            for q in T.serial(6):
                T.copy(X1[bx, q, :, :], u0)
                T.copy(u0, Y0[bx, q, :, :])

    return main
