# Regression (random tester, seed 3556 of the full profile, minimised). A root
# load of u1 (MTE2) is followed by a loop whose `if` updates u1 on V and whose
# `else` reloads it (MTE2 again). The same-pipe write-after-write needs
# pipe_barrier("MTE2") (MTE2 may overlap consecutive instructions); only the V
# consumer is synchronised. Fails in none and double (lower @ 293c731):
#   error: race on 'u1' bytes [0, 49152): written by T.copy X0 -> u1 (MTE2) here and
#   written by T.copy X0 -> u1 (MTE2) at line 20, with no pipe order, barrier or flag chain between them
# expect_double: pass
import tilelang.language as T


def random_kernel_3556():
    @T.prim_func
    def main(
        X0: T.Tensor((1, 3, 8, 3072), "float16"),
    ):
        with T.Kernel(1, is_npu=True) as bx:
            u1 = T.alloc_ub((8, 3072), "float16")

            T.copy(X0[bx, 0, :, :], u1)
            for l in T.serial(3):
                if l > 0:
                    for r, c in T.Parallel(8, 3072):
                        u1[r, c] = u1[r, c] + 1.0
                else:
                    T.copy(X0[bx, l, :, :], u1)

    return main
