# Regression (random tester, seed 27 of the full profile, minimised).
# A load at the kernel root (MTE2) is read inside the following loop by two
# pipes: a reduction (V) and a store (MTE3). The lowering emits MTE2 -> V only;
# the MTE3 store reads u1 before the load has landed (race, 512 elements differ).
# The same statements without the loop pass. Fails in none and double
# (lower @ 293c731):
#   error: race on 'u1' bytes [0, 512): read by T.copy u1 -> Y1 (MTE3) here and written by
#   T.copy X1 -> u1 (MTE2) at line 23, with no pipe order, barrier or flag chain between them
# expect_double: pass
import tilelang.language as T


def random_kernel_27():
    @T.prim_func
    def main(
        X1: T.Tensor((1, 2, 4, 64), "float16"),
        Y1: T.Tensor((1, 2, 4, 64), "float16"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            u1 = T.alloc_ub((4, 64), "float16")
            r0 = T.alloc_ub((4,), "float16")

            T.copy(X1[bx, 0, :, :], u1)
            for j in T.serial(2):
                T.reduce_max(u1, r0, dim=-1)
                T.copy(u1, Y1[bx, j, :, :])

    return main
